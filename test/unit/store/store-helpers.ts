import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store } from '../../../src/store/store';

/** A store file in a fresh temporary folder. */
export function tempStoreFile(prefix: string): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), `ideal-state-${prefix}-`)), 'ideal-state.sqlite');
}

/**
 * For a describe block: opens stores (no idle checkpoint during a test) and closes every one
 * after each test, so a failing assertion never leaves a writer lock behind for the next.
 */
export function useStores(): (file: string) => Promise<Store> {
  const open: Store[] = [];
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  return async (file: string) => {
    const store = await Store.open({ file, checkpointIdleMs: 60_000 });
    open.push(store);
    return store;
  };
}
