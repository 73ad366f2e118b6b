import type { CliIo } from '../shared/io';

/** `ideal-state store info`: where the workspace's store is, its schema, how many runs it holds, and whether another process writes it. */
export async function storeInfo(file: string, json: boolean, io: Pick<CliIo, 'out' | 'err'>): Promise<number> {
  const [{ Store }, { printStoreWarnings, storeWarningsJson }] = await Promise.all([import('../../store/store.js'), import('../../app/store-warnings.js')]);
  const store = await Store.open({ file });
  try {
    printStoreWarnings(store, io.err);
    const info = { path: store.location, schemaVersion: store.schemaVersion, runs: store.runs.count(), readOnly: store.readOnly };
    io.out(json ? JSON.stringify({ ...info, warnings: storeWarningsJson(store) }) : `store: ${info.path}\nschema: v${info.schemaVersion}\nruns: ${info.runs}\nmode: ${info.readOnly ? 'read-only' : 'read-write'}`);
    return 0;
  } finally {
    store.close();
  }
}
