/** The store was opened read-only because another window or process is its writer. */
export class ReadOnlyStoreError extends Error {
  override readonly name = 'ReadOnlyStoreError';
  readonly code = 'store-read-only';
  constructor(readonly location: string, readonly owner: string) {
    super(`The Ideal State store at ${location} is open for writing in another window or process (${owner}); this one can read it but not change it. Close the other one, then reload this window or run the command again.`);
  }
}

/** A stored row does not match its schema (written by a newer version, or edited by hand). */
export class StoreDataError extends Error {
  override readonly name = 'StoreDataError';
  readonly code = 'store-data';
  constructor(readonly table: string, readonly key: string, detail: string) {
    super(`Stored ${table} row ${key} is not valid: ${detail}. It was left in place; update Ideal State or remove the row.`);
  }
}
