import { RUN_ID } from '../model/run';
import { recordVerification, recordVerificationLater } from '../verify/store-verification';
import type { VerifiedCriteria } from './compose-verification';
import { printStoreWarnings, storeWarningsJson } from './store-warnings';

/** The report as stored, or (`pending`) as left for the store's next writer: its id is final; its run is named when the PRD names it. */
export interface StoredReport {
  readonly runId?: string;
  readonly reportId: string;
  readonly store: string;
  readonly pending?: true;
}

export interface FileReport {
  readonly stored?: StoredReport;
  readonly storeWarnings: ReturnType<typeof storeWarningsJson>;
}

/**
 * A PRD's report into the store file (the command line's side of the world). `later`: left as a
 * pending record beside the store, folded in when the store is next opened for writing, so a
 * one-shot process that says nothing of the store (the stop hook's gate) never loads SQLite.
 * A report that cannot be kept changes no verdict: it is a warning.
 */
export function fileReport(storeFile: string, o: { later: boolean; prdPath: string; workspaceFolder: string; warn: (s: string) => void }): (v: VerifiedCriteria) => Promise<FileReport> {
  return async ({ prd: read, set, effortTable, now }) => {
    if (!read) throw new Error('a file report is of a PRD');
    const { prepared: prd, text } = read;
    const input = { prdPath: o.prdPath, document: prd.document, text, criteria: prd.criteria, set, effortTable, effort: prd.level, workspaceFolder: o.workspaceFolder, now };
    if (o.later) {
      try {
        const left = recordVerificationLater(storeFile, input);
        const runId = prd.document.meta.runId;
        return { stored: { ...(runId && RUN_ID.test(runId) ? { runId } : {}), reportId: left.reportId, store: storeFile, pending: true }, storeWarnings: [] };
      } catch (error) {
        o.warn(`warning: verification report not left for ${storeFile}: ${(error as Error).message}`);
        return { storeWarnings: [] };
      }
    }
    try {
      // The store (SQLite) is loaded only when it is opened: a command that leaves a pending record never loads it.
      const { Store } = await import('../store/store.js');
      const store = await Store.open({ file: storeFile });
      try {
        // A busy store changes no verdict: the criteria's outcomes are what is reported.
        printStoreWarnings(store, o.warn);
        const storeWarnings = storeWarningsJson(store);
        const r = recordVerification(store, input);
        if (r.stored) return { stored: { runId: r.runId, reportId: r.reportId, store: store.location }, storeWarnings };
        o.warn(`warning: verification report not stored: ${r.reason}`);
        return { storeWarnings };
      } finally {
        store.close();
      }
    } catch (error) {
      o.warn(`warning: verification report not stored in ${storeFile}: ${(error as Error).message}`);
      return { storeWarnings: [] };
    }
  };
}
