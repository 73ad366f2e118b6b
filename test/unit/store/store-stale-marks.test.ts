import * as assert from 'node:assert/strict';
import type { StaleMark } from '../../../src/store/stale-marks';
import { staleMarkOf, type NewestVerdict } from '../../../src/vscode/verify/run-coverage';
import { aRun } from '../support/builders';
import { tempStoreFile, useStores } from './store-helpers';

const run = aRun({ id: 'run-stale1' });
const mark: StaleMark = { runId: run.id, criterionId: 'ISC-2', reportId: 'report-1', verdictAt: '2026-11-01T10:05:00.000Z', why: 'src/greet.js changed', at: '2026-11-01T10:09:00.000Z' };
const verdict = (reportId: string, at: string, outcome: 'PASS' | 'FAIL' = 'PASS'): NewestVerdict => ({ reportId, at, result: { criterionId: 'ISC-2', outcome, evidence: '', durationMs: 1, locations: [] } });

describe('stale marks in the store', () => {
  const openStore = useStores();

  it('keeps a stale PASS across reopening (a window reload), and goes with its run', async () => {
    const file = tempStoreFile('stale-marks');
    const first = await openStore(file);
    first.runs.save(run);
    first.staleMarks.mark(mark);
    first.close();

    const again = await openStore(file);
    assert.deepEqual(again.staleMarks.list(run.id), [mark]);
    again.staleMarks.mark({ ...mark, why: 'src/greet.js changed again', at: '2026-11-01T10:10:00.000Z' });
    assert.deepEqual(again.staleMarks.list(run.id).map((m) => m.why), ['src/greet.js changed again'], 'one mark per criterion');
    again.staleMarks.clear(run.id, 'ISC-2');
    assert.deepEqual(again.staleMarks.list(run.id), []);
    again.staleMarks.mark(mark);
    again.runs.delete(run.id);
    assert.deepEqual(again.staleMarks.list(run.id), [], 'deleting the run deletes its marks');
  });

  it('refuses a mark without its verdict, with the field named', async () => {
    const store = await openStore(tempStoreFile('stale-marks'));
    store.runs.save(run);
    assert.throws(() => store.staleMarks.mark({ ...mark, verdictAt: 'yesterday' }), /verdictAt/);
    assert.deepEqual(store.staleMarks.list(run.id), [], 'nothing half-written');
  });

  it('a mark holds only for the verdict it was made on: a newer verdict (re-verify) is fresh', () => {
    assert.equal(staleMarkOf([mark], 'ISC-2', verdict('report-1', '2026-11-01T10:05:00.000Z')), mark);
    assert.equal(staleMarkOf([mark], 'ISC-2', verdict('report-2', '2026-11-01T10:20:00.000Z')), undefined, 're-verified since');
    assert.equal(staleMarkOf([mark], 'ISC-2', verdict('report-1', '2026-11-01T10:05:00.000Z', 'FAIL')), undefined, 'only a PASS goes stale');
    assert.equal(staleMarkOf([mark], 'ISC-3', verdict('report-1', '2026-11-01T10:05:00.000Z')), undefined);
  });
});
