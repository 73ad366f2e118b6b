import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AnyCriterion } from '../../../src/model';
import { deleteRun, editCriterionText, EDITED_IN_THE_ISC_TABLE } from '../../../src/store/run-edits';
import { Store } from '../../../src/store/store';
import { recordRunVerification } from '../../../src/verify/run-verification';
import { summarize } from '../../../src/verify/verify-criteria';
import { aCriterion, aRun } from '../support/builders';

describe('the ISC table and the store', () => {
  const open: Store[] = [];
  async function aStore(): Promise<Store> {
    const store = await Store.open({ file: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-table-')), 'ideal-state.sqlite'), checkpointIdleMs: 60_000 });
    open.push(store);
    return store;
  }
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });

  function seed(store: Store, id = 'run-table01') {
    const run = aRun({ id, criteriaVersion: 1 });
    const criteria: AnyCriterion[] = [aCriterion({ id: 'ISC-1', text: 'Old statement of the first row', outcome: 'PASS', verifiedAt: run.createdAt, status: 'DONE' }), aCriterion({ id: 'ISC-2', outcome: 'FAIL' })];
    store.batch((tx) => {
      tx.runs.save(run);
      tx.criteria.saveVersion(id, 1, criteria);
    });
    return run;
  }

  it('an inline edit becomes the next criteria version with an "edited in the ISC table" decision; the restated row must be verified again', async () => {
    const store = await aStore();
    const run = seed(store);
    const result = editCriterionText(store, run.id, 'ISC-1', '  New   statement of the first row ', new Date('2026-11-02T00:00:00.000Z'));
    assert.deepEqual(result, { kind: 'edited', version: 2 });
    assert.deepEqual(store.criteria.versions(run.id), [1, 2]);
    const [first, second] = store.criteria.list(run.id);
    assert.equal(first!.text, 'New statement of the first row');
    assert.equal(first!.outcome, undefined, 'a restated criterion loses its outcome');
    assert.equal(first!.status, 'PENDING');
    assert.equal(second!.outcome, 'FAIL', 'the other rows carry over');
    assert.equal(store.criteria.list(run.id, 1)[0]!.text, 'Old statement of the first row', 'version 1 is kept');
    assert.equal(store.runs.get(run.id)!.criteriaVersion, 2);
    const [decision] = store.decisions.where('run_id = ?', [run.id]);
    assert.equal(decision!.decision, EDITED_IN_THE_ISC_TABLE);
    assert.equal(decision!.by, 'user');
    assert.equal(decision!.criteriaVersion, 2);
    assert.match(decision!.rationale, /ISC-1 text: "Old statement of the first row" → "New statement of the first row"/);
  });

  it('refuses an empty text or an unknown criterion and writes nothing; the same text is no change', async () => {
    const store = await aStore();
    const run = seed(store);
    assert.equal(editCriterionText(store, run.id, 'ISC-1', '   ').kind, 'refused');
    assert.equal(editCriterionText(store, run.id, 'ISC-99', 'Something else entirely here').kind, 'refused');
    assert.equal(editCriterionText(store, 'run-missing1', 'ISC-1', 'Something else entirely here').kind, 'refused');
    assert.equal(editCriterionText(store, run.id, 'ISC-1', 'Old statement of the first row').kind, 'unchanged');
    assert.deepEqual(store.criteria.versions(run.id), [1]);
    assert.equal(store.decisions.count(), 0);
  });

  it('a re-verification updates the verified rows of the latest version and stores a report, leaving the run state alone', async () => {
    const store = await aStore();
    const run = seed(store);
    const criteria = store.criteria.list(run.id).filter((c) => c.id === 'ISC-2');
    const set = summarize(criteria, [{ criterionId: 'ISC-2', outcome: 'PASS', evidence: 'src/x.ts:3: found', durationMs: 7, locations: [{ file: 'src/x.ts', line: 3 }] }]);
    const stored = recordRunVerification(store, run.id, set, new Date('2026-11-03T00:00:00.000Z'));
    assert.equal(stored.stored, true);
    const rows = store.criteria.list(run.id);
    assert.equal(rows.find((c) => c.id === 'ISC-2')!.outcome, 'PASS');
    assert.equal(rows.find((c) => c.id === 'ISC-2')!.verifiedAt, '2026-11-03T00:00:00.000Z');
    assert.equal(rows.find((c) => c.id === 'ISC-1')!.outcome, 'PASS', 'an unverified row keeps its outcome');
    const [report] = store.reports.where('run_id = ?', [run.id]);
    assert.deepEqual(report!.results.map((r) => r.criterionId), ['ISC-2']);
    assert.equal(store.runs.get(run.id)!.state, run.state);
  });

  it('deleting a run removes its rows, reflections and PRD index entry, keeps ratings and leaves other runs alone', async () => {
    const store = await aStore();
    const run = seed(store);
    const other = seed(store, 'run-table02');
    const at = run.createdAt;
    store.batch((tx) => {
      tx.reports.save({ id: 'r1', runId: run.id, iteration: 0, criteriaVersion: 1, results: [], passed: true, summary: '', createdAt: at });
      tx.events.save({ runId: run.id, seq: 0, at, kind: 'note', message: 'hello', inputTokens: 0, outputTokens: 0, costUsd: 0 });
      tx.prdIndex.save({ path: '.ideal-state/prds/a.md', prdId: 'PRD-a', runId: run.id, title: 'A', status: 'DRAFT', contentHash: 'x', updatedAt: at });
      tx.ratings.save({ id: 'rating-1', timestamp: at, rating: 8, runId: run.id, sessionId: 's', type: 'explicit' });
      tx.reflections.save({
        id: 'refl-1', runId: run.id, timestamp: at, effortLevel: 'STANDARD', criteriaCount: 2, criteriaPassed: 1, criteriaFailed: 1, withinBudget: true, elapsedPercent: 10,
        q1Self: 'a', q2Workflow: 'b', q3System: 'c', category: 'ALGORITHM', version: '1',
      });
    });
    deleteRun(store, run.id);
    assert.equal(store.runs.get(run.id), undefined);
    assert.equal(store.criteria.list(run.id).length, 0);
    assert.equal(store.reports.count('run_id = ?', [run.id]), 0);
    assert.equal(store.events.count('run_id = ?', [run.id]), 0);
    assert.equal(store.reflections.count('run_id = ?', [run.id]), 0);
    assert.equal(store.prdIndex.count(), 0);
    assert.equal(store.ratings.count(), 1, 'ratings are the user\'s history');
    assert.ok(store.runs.get(other.id));
    assert.equal(store.criteria.list(other.id).length, 2);
  });
});
