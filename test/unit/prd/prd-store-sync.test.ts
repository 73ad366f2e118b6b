import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { applyEdits, CREATED_FROM_THE_PRD, EDITED_IN_THE_PRD, syncPrdToStore } from '../../../src/prd';
import { Store } from '../../../src/store/store';
import { renderLoopPrd } from '../../../src/app/loop/loop-prd';
import { LoopSpec } from '../../../src/model/loop';

const PRD = [
  '---',
  'prd: true',
  'id: PRD-20261122-sync',
  'status: DRAFT',
  'effort_level: FAST',
  '---',
  '# Store sync fixture',
  '',
  '## Problem Space',
  'Saving the file updates the run.',
  '',
  '## Ideal State Criteria',
  '- [ ] ISC-1: Settings page shows a dark mode toggle switch to users | Verify: Grep: dark-mode',
  '- [ ] ISC-2: Dark theme colours pass the contrast checker at level AA | Verify: CLI: npm run contrast',
  '',
  '## Anti-Criteria',
  '- [ ] ISC-A-1: No stylesheet hard-codes a colour outside the theme tokens | Verify: Custom',
  '',
].join('\n');

describe('a saved PRD in the store', () => {
  let store: Store;
  const table = shippedEffortTable();
  const sync = (text: string, at: string, file = '.ideal-state/prds/sync.md') => syncPrdToStore(store, { text, path: file, effortTable: table, now: new Date(at) });

  beforeEach(async () => {
    store = await Store.open({ file: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-prd-sync-')), 'ideal-state.sqlite'), checkpointIdleMs: 60_000 });
  });
  afterEach(() => store.close());

  it('creates a run linked through the PRD index on the first save, without touching the file', () => {
    const result = sync(PRD, '2026-11-22T01:00:00.000Z');
    assert.equal(result.kind, 'created');
    const runId = result.kind === 'created' ? result.runId : '';
    const run = store.runs.get(runId)!;
    assert.deepEqual([run.request, run.effort, run.criteriaVersion, run.prdPath], ['Store sync fixture', 'FAST', 1, '.ideal-state/prds/sync.md']);
    assert.deepEqual(store.criteria.list(runId).map((c) => [c.id, c.kind, c.status]), [['ISC-1', 'criterion', 'PENDING'], ['ISC-2', 'criterion', 'PENDING'], ['ISC-A-1', 'anti-criterion', 'PENDING']]);
    assert.deepEqual(store.decisions.where('run_id = ?', [runId]).map((d) => [d.decision, d.by, d.criteriaVersion]), [[CREATED_FROM_THE_PRD, 'user', 1]]);
    assert.equal(store.prdIndex.where('path = ?', ['.ideal-state/prds/sync.md'])[0]?.runId, runId);
    assert.deepEqual(sync(PRD, '2026-11-22T01:01:00.000Z'), { kind: 'unchanged', runId, version: 1 }, 'saving the same criteria again changes nothing');
  });

  it('turns a user’s edit into a new criteria version with an "edited in the PRD" decision, keeping unchanged rows’ outcomes', () => {
    const first = sync(PRD, '2026-11-22T01:00:00.000Z');
    const runId = first.kind === 'created' ? first.runId : '';
    // The verifier's outcomes, as the engine would store them.
    for (const c of store.criteria.list(runId, 1)) store.criteria.update(runId, 1, { ...c, outcome: 'PASS', verifiedAt: '2026-11-22T01:00:30.000Z' });

    const edited = applyEdits(PRD, [
      { kind: 'setChecked', id: 'ISC-1', checked: true },
      { kind: 'setText', id: 'ISC-2', text: 'Dark theme colours pass the contrast checker at level AAA' },
      { kind: 'addCriterion', criterion: { id: 'ISC-3', text: 'Toggle state survives a full window reload by the user' } },
    ]);
    const result = sync(edited, '2026-11-22T01:05:00.000Z');
    assert.deepEqual(result, { kind: 'edited', runId, version: 2, changes: ['ISC-1 checked', 'ISC-2 text', 'ISC-3 added'] });

    assert.deepEqual(store.criteria.versions(runId), [1, 2]);
    const v2 = new Map(store.criteria.list(runId, 2).map((c) => [c.id, c]));
    assert.deepEqual([v2.get('ISC-1')!.status, v2.get('ISC-1')!.outcome], ['DONE', 'PASS'], 'ticking keeps the verified outcome');
    assert.equal(v2.get('ISC-2')!.text, 'Dark theme colours pass the contrast checker at level AAA');
    assert.equal(v2.get('ISC-2')!.outcome, undefined, 'a restated criterion must be verified again');
    assert.equal(v2.get('ISC-A-1')!.outcome, 'PASS');
    assert.equal(v2.get('ISC-3')!.status, 'PENDING');
    assert.equal(store.criteria.list(runId, 1).find((c) => c.id === 'ISC-2')!.text, 'Dark theme colours pass the contrast checker at level AA', 'version 1 is kept as it was');
    assert.equal(store.runs.get(runId)!.criteriaVersion, 2);

    const decisions = store.decisions.where('run_id = ?', [runId], 'at');
    assert.deepEqual(decisions.map((d) => [d.decision, d.by, d.criteriaVersion]), [[CREATED_FROM_THE_PRD, 'user', 1], [EDITED_IN_THE_PRD, 'user', 2]]);
    assert.equal(decisions[1]!.rationale, '.ideal-state/prds/sync.md: ISC-1 checked, ISC-2 text, ISC-3 added');

    const removed = sync(applyEdits(edited, [{ kind: 'removeCriterion', id: 'ISC-3' }]), '2026-11-22T01:06:00.000Z');
    assert.deepEqual(removed, { kind: 'edited', runId, version: 3, changes: ['ISC-3 removed'] });
  });

  it('follows the run_id in the frontmatter, even for a file it has not seen at this path', () => {
    const first = sync(PRD, '2026-11-22T01:00:00.000Z');
    const runId = first.kind === 'created' ? first.runId : '';
    const moved = PRD.replace('effort_level: FAST', `effort_level: FAST\nrun_id: ${runId}`);
    const result = sync(applyEdits(moved, [{ kind: 'setChecked', id: 'ISC-2', checked: true }]), '2026-11-22T01:02:00.000Z', 'docs/moved.md');
    assert.deepEqual(result, { kind: 'edited', runId, version: 2, changes: ['ISC-2 checked'] });
    assert.equal(store.runs.get(runId)!.prdPath, 'docs/moved.md');
  });

  it('writes nothing for a PRD with errors, a file that is not a PRD, or a read-only store', () => {
    const duplicate = PRD.replace('ISC-2:', 'ISC-1:');
    const skipped = sync(duplicate, '2026-11-22T01:00:00.000Z');
    assert.equal(skipped.kind, 'skipped');
    assert.match(skipped.kind === 'skipped' ? skipped.reason : '', /1 error in the PRD/);
    assert.deepEqual(sync('# Just notes\n', '2026-11-22T01:00:00.000Z'), { kind: 'not-a-prd' });
    assert.equal(store.runs.count(), 0);
    const readOnly = syncPrdToStore({ ...storeView(store), readOnly: true }, { text: PRD, path: 'x.md', effortTable: table });
    assert.equal(readOnly.kind, 'skipped');
    assert.equal(store.runs.count(), 0);
  });

  it("leaves a loop's PRD alone: saving it makes no run (the loop stores its artifacts' runs)", () => {
    const at = '2026-11-24T01:00:00.000Z';
    const loopPrd = renderLoopPrd({
      loop: { id: 'loop-1', spec: LoopSpec.parse({ glob: 'docs/**/*.md', isc: 'docs.page', agents: 2, effort: 'STANDARD', maxIterations: 3 }), state: 'FAILED', iteration: 1, effort: 'STANDARD', criterionIds: ['ISC-DOC-001'], log: [], createdAt: at, updatedAt: at },
      artifacts: [{ file: 'docs/a.md', status: 'FAILING', outcomes: { 'ISC-DOC-001': 'FAIL' } }],
      prdPath: '.ideal-state/prds/loop.md',
    });
    const result = sync(loopPrd, at, '.ideal-state/prds/loop.md');
    assert.equal(result.kind, 'skipped');
    assert.match(result.kind === 'skipped' ? result.reason : '', /loop loop-1/);
    assert.equal(store.runs.count(), 0);
  });
});

function storeView(store: Store) {
  return { runs: store.runs, criteria: store.criteria, prdIndex: store.prdIndex, batch: store.batch.bind(store), readOnly: store.readOnly };
}
