import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { StepCommit } from '../../../src/algorithm/ports';
import { StoreRunStorage } from '../../../src/algorithm/store-run-storage';
import { Store } from '../../../src/store/store';
import { aCriterion, aRun } from '../support/builders';

function tempFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-store-commits-')), 'ideal-state.sqlite');
}

describe('store: what a commit costs', () => {
  const open: Store[] = [];
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  async function openStore(file = tempFile()): Promise<Store> {
    const store = await Store.open({ file, checkpointIdleMs: 60_000 });
    open.push(store);
    return store;
  }

  it('reuses prepared statements across commits and checkpoints, and reads and writes stay right', async () => {
    const file = tempFile();
    const store = await openStore(file);
    const run = aRun();
    store.runs.save(run);
    for (let i = 0; i < 5; i++) store.runs.save({ ...run, iteration: i + 1 });
    assert.equal(store.runs.get(run.id)!.iteration, 5);
    // sql.js closes and reopens the database to export it: cached statements must not outlive that.
    store.checkpoint();
    store.runs.save({ ...run, iteration: 6 });
    assert.equal(store.runs.get(run.id)!.iteration, 6);
    assert.equal(store.runs.count(), 1);
    store.close();
    open.splice(0);
    const again = await openStore(file);
    assert.equal(again.runs.get(run.id)!.iteration, 6, 'the commit after the checkpoint came back from the journal');
  });

  it('keeps working when more distinct queries run than it keeps prepared', async () => {
    const store = await openStore();
    const run = aRun();
    store.runs.save(run);
    // LIMIT n makes each text distinct: 300 of them pass the cache's bound and push the oldest out.
    for (let n = 1; n <= 300; n++) assert.equal(store.runs.table.where('id = ?', [run.id], undefined, n).length, 1);
    assert.equal(store.runs.get(run.id)!.id, run.id);
  });

  it('writes only the rows a step changed, and the store still holds them all', async () => {
    const store = await openStore();
    const storage = new StoreRunStorage(store);
    const run = aRun();
    const criteria = [aCriterion({ id: 'ISC-1' }), aCriterion({ id: 'ISC-2' }), aCriterion({ id: 'ISC-3' })];
    const step = (c: Partial<StepCommit>): StepCommit => ({ run, criteria, events: [], ...c });
    storage.commit(step({}));
    const afterFirst = store.journalBytes;
    storage.commit(step({}));
    assert.equal(store.journalBytes, afterFirst, 'nothing changed, nothing written');
    const changed = [criteria[0]!, { ...criteria[1]!, status: 'DONE' as const }, criteria[2]!];
    storage.commit(step({ criteria: changed }));
    const grew = store.journalBytes - afterFirst;
    assert.ok(grew > 0, 'the changed row was written');
    assert.ok(grew < afterFirst / 2, `one row of three was written (${grew} bytes after ${afterFirst})`);
    assert.deepEqual(store.criteria.list(run.id).map((c) => c.status), ['PENDING', 'DONE', 'PENDING']);
  });

  it('remembers nothing of a commit that failed: the next one writes those rows', async () => {
    const store = await openStore();
    const storage = new StoreRunStorage(store);
    const run = aRun();
    const good = aCriterion({ id: 'ISC-1' });
    storage.commit({ run, criteria: [good], events: [] });
    const edited = { ...good, status: 'DONE' as const };
    // An invalid event fails the whole batch, the edited criterion with it.
    assert.throws(() => storage.commit({ run, criteria: [edited], events: [{ runId: run.id, seq: -1 } as never] }));
    assert.equal(store.criteria.list(run.id)[0]!.status, 'PENDING', 'the failed commit left nothing');
    storage.commit({ run, criteria: [edited], events: [] });
    assert.equal(store.criteria.list(run.id)[0]!.status, 'DONE', 'the row the failed commit held was written by the next');
  });
});
