import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveEffort, prdEffort } from '../../../src/app/effort';
import { RunSessions, type RunDelta } from '../../../src/app/run-sessions';
import { preparePrd, storePrdVerification } from '../../../src/app/verify-prd';
import type { Restatement } from '../../../src/algorithm/restatements';
import { shippedEffortTable } from '../../../src/model/effort-table';
import type { RunEvent } from '../../../src/model';
import { syncPrdToStore } from '../../../src/prd';
import { EDITED_IN_THE_ISC_TABLE } from '../../../src/store/run-edits';
import { Store } from '../../../src/store/store';
import type { VerifySetResult } from '../../../src/verify/types';
import { harness, levelMin, managerSteps, markerCriteria, markerFile, specialistSteps } from '../support/algorithm-helpers';

const PRD = [
  '---',
  'prd: true',
  'id: PRD-20261124-app',
  'status: DRAFT',
  'effort_level: FAST',
  '---',
  '# App layer fixture',
  '',
  '## Problem Space',
  'One writer for the run.',
  '',
  '## Ideal State Criteria',
  '- [ ] ISC-1: Settings page shows a dark mode toggle switch to users | Verify: Grep: dark-mode',
  '- [ ] ISC-2: Dark theme colours pass the contrast checker at level AA | Verify: CLI: npm run contrast',
  '',
].join('\n');
const FILE = '.ideal-state/prds/app.md';
const table = shippedEffortTable();

function passing(ids: readonly string[]): VerifySetResult {
  const results = ids.map((id) => ({ criterionId: id, outcome: 'PASS' as const, evidence: 'seen', durationMs: 1, locations: [] }));
  return { results, passed: true, summary: `${ids.length} pass`, counts: { PASS: ids.length, FAIL: 0, PARTIAL: 0, UNKNOWN: 0 }, coverage: {} };
}

describe('the application layer (issue 16)', () => {
  let store: Store;
  let runId: string;

  beforeEach(async () => {
    store = await Store.open({ file: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-app-')), 'ideal-state.sqlite'), checkpointIdleMs: 60_000 });
    const created = syncPrdToStore(store, { text: PRD, path: FILE, effortTable: table });
    assert.equal(created.kind, 'created');
    runId = created.kind === 'created' ? created.runId : '';
  });
  afterEach(() => store.close());

  describe('verifying a PRD never creates a criteria version by itself', () => {
    it('puts outcomes on the run’s latest version, and leaves a reworded criterion in the report only', () => {
      const reworded = PRD.replace('shows a dark mode toggle switch to users', 'shows a dark mode toggle switch to every user');
      const prd = preparePrd(reworded, { name: FILE, effortTable: table });
      assert.ok(prd.ok);
      const stored = storePrdVerification(store, prd, { prdPath: FILE, text: reworded, set: passing(['ISC-1', 'ISC-2']), effortTable: table });
      assert.ok(stored.stored);
      assert.equal(stored.runId, runId);
      assert.deepEqual(stored.unmatched, ['ISC-1']);
      assert.deepEqual(store.criteria.versions(runId), [1], 'no version 2');
      const latest = store.criteria.list(runId, 1);
      assert.deepEqual(latest.map((c) => [c.id, c.outcome]), [['ISC-1', undefined], ['ISC-2', 'PASS']]);
      assert.equal(latest[0]!.text, 'Settings page shows a dark mode toggle switch to users', 'the stored wording is the run’s until the PRD is saved');
      assert.equal(store.reports.where('run_id = ?', [runId]).length, 1);
    });
  });

  describe('RunSessions, the one writer of a window’s runs', () => {
    it('restates a stopped run’s criterion as its next version, and says so once', async () => {
      const sessions = new RunSessions(async () => store);
      const deltas: RunDelta[] = [];
      sessions.onDelta((d) => deltas.push(d));
      const result = await sessions.restate(runId, 'ISC-2', 'Dark theme colours pass the contrast checker at level AAA');
      assert.deepEqual(result, { kind: 'edited', version: 2 });
      assert.equal(store.criteria.list(runId, 2).find((c) => c.id === 'ISC-2')!.text, 'Dark theme colours pass the contrast checker at level AAA');
      assert.deepEqual(deltas, [{ kind: 'criteria', runId, via: 'table', queued: false }]);
    });

    it('hands a going run’s restatement and its reworded PRD criteria to its engine, never to the store behind it', async () => {
      const sessions = new RunSessions(async () => store);
      const handed: Restatement[] = [];
      let cancelled = 0;
      sessions.begin(runId, { restate: (_id, r) => handed.push(r), cancel: () => cancelled++ });
      assert.deepEqual(await sessions.restate(runId, 'ISC-1', 'Settings page shows a dark mode toggle to users'), { kind: 'queued' });
      const saved = PRD.replace('at level AA', 'at level AAA').replace('| Verify: CLI: npm run contrast\n', '| Verify: CLI: npm run contrast\n- [ ] ISC-3: Dark mode choice survives a reload of the settings page | Verify: Grep: persist\n');
      const synced = await sessions.syncPrd({ text: saved, path: FILE, effortTable: table });
      assert.deepEqual(synced, { kind: 'queued', runId, restated: ['ISC-2'], waiting: ['ISC-3'] });
      assert.deepEqual(handed.map((r) => r.criterionId), ['ISC-1', 'ISC-2']);
      assert.deepEqual(store.criteria.versions(runId), [1], 'the store was not written behind the engine');
      assert.equal(sessions.cancel(runId), 1);
      assert.equal(cancelled, 1);
      const ended: RunDelta[] = [];
      sessions.onDelta((d) => ended.push(d));
      sessions.end(runId, 'CANCELLED');
      assert.deepEqual(ended, [{ kind: 'ended', runId, state: 'CANCELLED' }]);
      assert.equal(sessions.isLive(runId), false);
    });
  });

  describe('effort names', () => {
    it('resolves levels and aliases in any case, AUTO only where allowed, and refuses an unknown name with the known ones', () => {
      assert.deepEqual(resolveEffort(undefined, table), { ok: true, level: 'STANDARD' });
      assert.deepEqual(resolveEffort('extended', table), { ok: true, level: 'EXTENDED' });
      assert.deepEqual(resolveEffort('auto', table, { auto: true }), { ok: true, level: 'AUTO' });
      const auto = resolveEffort('AUTO', table);
      assert.equal(auto.ok, false);
      const unknown = resolveEffort('turbo', table);
      assert.ok(!unknown.ok && unknown.message.includes('"turbo"') && unknown.message.includes('STANDARD'));
      assert.deepEqual(prdEffort('fast', table), { level: 'FAST' });
      const fallback = prdEffort('turbo', table);
      assert.equal(fallback.level, 'STANDARD');
      assert.match(fallback.warning ?? '', /turbo.*verified at STANDARD/);
    });
  });
});

describe('a going run restated through its engine (issue 16)', () => {
  it('takes the new statement at its next step as a new criteria version with the person’s decision, and keeps it to the end', async () => {
    const n = Math.max(2, levelMin('FAST'));
    const h = await harness([...managerSteps(markerCriteria(n)), ...specialistSteps('out.txt', markerFile(n))]);
    try {
      const restated = 'Output file holds the second marker line exactly';
      // The person edits ISC-2 in the table while THINK runs: the session hands it to the engine.
      const push = h.events.push.bind(h.events);
      h.events.push = (...events: RunEvent[]) => {
        for (const e of events) if (e.kind === 'phase' && e.message === 'OBSERVE → THINK') h.engine.restate(e.runId, { criterionId: 'ISC-2', text: restated });
        return push(...events);
      };
      const result = await h.engine.start({ request: `Write out.txt with ${n} marker lines`, effort: 'FAST' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.equal(result.criteria.find((c) => c.id === 'ISC-2')!.text, restated);
      const run = h.store.runs.get(result.run.id)!;
      const versions = h.store.criteria.versions(run.id);
      assert.equal(run.criteriaVersion, versions[versions.length - 1]);
      assert.equal(h.store.criteria.list(run.id, run.criteriaVersion).find((c) => c.id === 'ISC-2')!.text, restated, 'no later commit overwrote it');
      assert.equal(h.store.criteria.list(run.id, run.criteriaVersion).find((c) => c.id === 'ISC-2')!.outcome, 'PASS', 'verified after the restatement');
      const decision = h.store.decisions.where('run_id = ?', [run.id]).find((d) => d.decision === EDITED_IN_THE_ISC_TABLE);
      assert.ok(decision && decision.by === 'user' && decision.rationale.includes(restated));
      assert.ok(h.events.some((e) => e.kind === 'note' && e.message.includes('edited in the ISC table')));
    } finally {
      h.close();
    }
  });
});
