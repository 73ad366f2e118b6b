import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StoreDataError } from '../../../src/store/errors';
import { setValidateTrustedWrites } from '../../../src/store/json-table';
import { StoreRunStorage } from '../../../src/algorithm/store-run-storage';
import { Store } from '../../../src/store/store';
import { aRun } from '../support/builders';

// A root hook: the whole unit suite validates the engine's own writes too (the product skips
// that re-parse for speed, see JsonTable.upsertTrustedStatement), so an engine change that
// builds a bad entity fails the tests at the commit that wrote it.
before(() => setValidateTrustedWrites(true));

describe('write validation', () => {
  const open: Store[] = [];
  async function openStore(): Promise<Store> {
    const store = await Store.open({ file: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-validate-')), 'ideal-state.sqlite'), checkpointIdleMs: 60_000 });
    open.push(store);
    return store;
  }
  afterEach(() => {
    setValidateTrustedWrites(true);
    for (const s of open.splice(0)) s.close();
  });

  it('refuses a bad entity written through a repository (anything from outside the engine), whatever the setting', async () => {
    const store = await openStore();
    for (const on of [true, false]) {
      setValidateTrustedWrites(on);
      const bad = { ...aRun(), state: 'NOT_A_STATE' } as unknown as ReturnType<typeof aRun>;
      assert.throws(() => store.runs.save(bad));
      assert.equal(store.runs.count(), 0);
    }
  });

  it('refuses a bad entity in the engine\'s commit when trusted writes are validated (the tests)', async () => {
    const store = await openStore();
    setValidateTrustedWrites(true);
    const bad = { ...aRun(), state: 'NOT_A_STATE' } as unknown as ReturnType<typeof aRun>;
    assert.throws(() => new StoreRunStorage(store).commit({ run: bad, events: [] }));
    assert.equal(store.runs.count(), 0);
  });

  it('without that validation (the product), a bad engine row is still refused when read back', async () => {
    const store = await openStore();
    setValidateTrustedWrites(false);
    const bad = { ...aRun(), state: 'NOT_A_STATE' } as unknown as ReturnType<typeof aRun>;
    new StoreRunStorage(store).commit({ run: bad, events: [] });
    assert.throws(() => store.runs.get(bad.id), StoreDataError);
  });

  it('stores what the engine built, read back equal, without the re-parse', async () => {
    const store = await openStore();
    setValidateTrustedWrites(false);
    const run = aRun();
    new StoreRunStorage(store).commit({ run, events: [] });
    assert.deepEqual(store.runs.get(run.id), run);
  });
});
