import { printStoreWarnings } from '../../app/store-warnings';
import { Store } from '../../store/store';
import type { CliIo } from '../shared/io';

/** Opens the store, and runs `work` on a run that exists there (exit 2 when it does not). */
export async function withStoredRun(runId: string, storeFile: string, io: Pick<CliIo, 'err'>, work: (store: Store) => Promise<number>): Promise<number> {
  const store = await Store.open({ file: storeFile });
  try {
    printStoreWarnings(store, io.err);
    if (!store.runs.get(runId)) {
      io.err(`ideal-state: no run ${runId} in ${store.location}`);
      return 2;
    }
    return await work(store);
  } finally {
    store.close();
  }
}
