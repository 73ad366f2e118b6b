import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { denyAll, type ApprovalRequest } from '../../../src/agent/approvals';
import { probeCandidates } from '../../../src/algorithm/probe';
import { PROBE_WORDS } from '../../../src/app/probe';
import type { AnyCriterion } from '../../../src/model';
import { notesOf } from '../../../src/prd/notes';
import { parsePrd } from '../../../src/prd/parse';
import { harness, managerSteps, specialistSteps, tempDir, type CriterionSpec } from '../support/algorithm-helpers';

/**
 * Probe the probes when a run accepts its criteria (issue 28 §5): after BUILD's gate and before
 * EXECUTE, each runnable check runs once on the workspace as it is. A check of new behaviour that
 * already passes is flagged (a run event, a "Probe" note in the PRD, memo.probed); one that fails
 * is not; a command that needs a person's approval is not run by the probe (so not probed).
 */
describe('algorithm: the probe when a run accepts its criteria', () => {
  const RAN = 'probe-ran.txt';
  const criteria = (command: string): CriterionSpec[] => [
    { text: 'Output file out.txt holds the marker line', verify: { type: 'GREP', pattern: '^marker-1$', glob: 'out.txt', expect: 'present' } },
    { text: 'The ready file says ready on its own line', verify: { type: 'GREP', pattern: '^ready$', glob: 'ready.txt', expect: 'present' } },
    { text: 'The check command exits with status zero', verify: { type: 'CLI', command } },
    { text: 'No debugger statement is left in out.txt', anti: true, verify: { type: 'GREP', pattern: 'debugger', glob: 'out.txt', expect: 'absent' } },
  ];
  const writes = `node -e "require('fs').writeFileSync('${RAN}', 'x')"`;

  function workspace(): string {
    const ws = tempDir('probe-ws');
    fs.writeFileSync(path.join(ws, 'ready.txt'), 'ready\n');
    return ws;
  }

  function probeNotes(file: string): Record<string, string[]> {
    const doc = parsePrd(fs.readFileSync(file, 'utf8'));
    return Object.fromEntries(doc.criteria.map((c) => [c.id, notesOf(doc, c.id).filter((n) => n.kind === 'probe').map((n) => n.text)]));
  }

  it('flags the check that already passes, not the one that fails, and never runs a command that needs approval', async function () {
    this.timeout(60_000);
    const asked: { request: ApprovalRequest; ranBefore: boolean }[] = [];
    const ws = workspace();
    const h = await harness([...managerSteps(criteria(writes)), ...specialistSteps('out.txt', 'marker-1\n')], {
      workspace: ws,
      approver: { ask: async (r, s) => (asked.push({ request: r, ranBefore: fs.existsSync(path.join(ws, RAN)) }), denyAll.ask(r, s)) },
    });
    try {
      const result = await h.engine.start({ request: 'Write out.txt with a marker line', effort: 'INSTANT' });
      const probe = h.events.filter((e) => e.message.startsWith('probe:'));
      assert.equal(probe.length, 1, JSON.stringify(h.events.map((e) => e.message)));
      assert.equal(probe[0]!.phase, 'BUILD');
      assert.equal(probe[0]!.message, `probe: ISC-2 ${PROBE_WORDS}`);
      // Before EXECUTE: the probe event comes before the work.
      const order = h.events.map((e) => e.message);
      assert.ok(order.indexOf(probe[0]!.message) < order.indexOf('BUILD → EXECUTE'));
      // The command needing approval was not run by the probe, and nobody was asked for it before VERIFY.
      assert.equal(fs.existsSync(path.join(ws, RAN)), false);
      assert.equal(asked.length, 1, 'only VERIFY asks');
      assert.equal(asked[0]!.ranBefore, false);
      const steps = h.store.steps.where('run_id = ?', [result.run.id], 'seq');
      assert.deepEqual(steps.at(-1)!.memo.probed, ['ISC-2']);
      // The PRD: a Probe note under ISC-2 only (ISC-1 failed before the work; the anti-criterion is never flagged).
      const notes = probeNotes(path.join(ws, result.run.prdPath!));
      assert.equal(notes['ISC-2']!.length, 1);
      assert.ok(notes['ISC-2']![0]!.startsWith(`${PROBE_WORDS} (`), notes['ISC-2']![0]);
      assert.match(notes['ISC-2']![0]!, /\(\d{4}-\d{2}-\d{2}\)$/);
      for (const id of ['ISC-1', 'ISC-3', 'ISC-A-1']) assert.deepEqual(notes[id], [], id);
    } finally {
      h.close();
    }
  });

  it('runs an allow-listed command once before the work and flags it when it already passes', async function () {
    this.timeout(60_000);
    const ws = workspace();
    const h = await harness([...managerSteps(criteria('node -e "process.exit(0)"')), ...specialistSteps('out.txt', 'marker-1\n')], { workspace: ws, allowCommands: ['*'] });
    try {
      const result = await h.engine.start({ request: 'Write out.txt with a marker line', effort: 'INSTANT' });
      const probe = h.events.find((e) => e.message.startsWith('probe:'))!;
      assert.equal(probe.message, `probe: ISC-2, ISC-3 ${PROBE_WORDS.replace('passes', 'pass').replace('this check', 'these checks')}`);
      const notes = probeNotes(path.join(ws, result.run.prdPath!));
      assert.equal(notes['ISC-3']!.length, 1);
      assert.equal(notes['ISC-1']!.length, 0);
    } finally {
      h.close();
    }
  });

  it('says so when no check of new behaviour passes before the work, and flags nothing', async function () {
    this.timeout(60_000);
    const ws = tempDir('probe-ws');
    const h = await harness([...managerSteps([criteria('')[0]!]), ...specialistSteps('out.txt', 'marker-1\n')], { workspace: ws });
    try {
      const result = await h.engine.start({ request: 'Write out.txt with a marker line', effort: 'INSTANT' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      const probe = h.events.filter((e) => e.message.startsWith('probe:'));
      assert.deepEqual(probe.map((e) => e.message), ['probe: 1 check of new behaviour run on the workspace as it is; none passes before any work']);
      assert.deepEqual(probeNotes(path.join(ws, result.run.prdPath!))['ISC-1'], []);
    } finally {
      h.close();
    }
  });

  it('probes what the run is about to build: not anti-criteria, not unrunnable checks, not rows that already passed', () => {
    const base = { text: 't', status: 'PENDING', priority: 'CRITICAL', source: 'EXPLICIT', createdAt: '', updatedAt: '' };
    const rows = [
      { ...base, id: 'ISC-1', kind: 'criterion', verify: { type: 'GREP', pattern: 'x', expect: 'present' } },
      { ...base, id: 'ISC-2', kind: 'criterion', verify: { type: 'CUSTOM', description: 'looks right' } },
      { ...base, id: 'ISC-3', kind: 'criterion', verify: { type: 'READ', path: 'a.txt' }, outcome: 'PASS' },
      { ...base, id: 'ISC-4', kind: 'criterion' },
      { ...base, id: 'ISC-A-1', kind: 'anti-criterion', verify: { type: 'GREP', pattern: 'x', expect: 'absent' } },
    ] as unknown as AnyCriterion[];
    assert.deepEqual(probeCandidates(rows).map((c) => c.id), ['ISC-1']);
  });
});
