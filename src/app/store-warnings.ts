import type { StoreWarning } from '../store/durable-database';

/**
 * Exit code of a command that must change the store while another process is its writer:
 * not 1 (FAILED), because nothing ran and nothing failed; try again when the other one ends.
 */
export const STORE_BUSY_EXIT_CODE = 5;

type Warned = { readonly warnings: readonly StoreWarning[] };

/**
 * What went wrong while opening the store, on standard error, one line each: damaged files
 * moved aside (and where), commits a damaged journal lost, read-only mode. Every command that
 * opens the store says this, so damage is never only in a log nobody reads.
 */
export function printStoreWarnings(store: Warned, err: (s: string) => void, options: { skipReadOnly?: boolean } = {}): void {
  for (const w of store.warnings) {
    // A command that needs to write says it in its own words (storeBusyMessage).
    if (w.kind === 'read-only' && options.skipReadOnly) continue;
    err(`warning: ${w.message}`);
  }
}

/** The same, for `--json` output: `warnings: [{ kind, message, movedTo? }]`. */
export function storeWarningsJson(store: Warned): { kind: string; message: string; movedTo?: string }[] {
  return store.warnings.map((w) => ({ kind: w.kind, message: w.message, ...(w.movedTo ? { movedTo: w.movedTo } : {}) }));
}

/** The line a command prints when it needs to write and another process is the writer (`nothingDone`: "Nothing was run."). */
export function storeBusyMessage(store: Warned & { readonly location: string }, nothingDone: string): string {
  const readOnly = store.warnings.find((w) => w.kind === 'read-only');
  return `ideal-state: store busy: ${readOnly?.message ?? `the store ${store.location} is open for writing in another process.`} ${nothingDone}`;
}
