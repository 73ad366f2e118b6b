/** The store was opened read-only because another window or process is its writer. */
export class ReadOnlyStoreError extends Error {
  override readonly name = 'ReadOnlyStoreError';
  constructor(readonly location: string, readonly owner: string) {
    super(`The Ideal State store at ${location} is open for writing in another window or process (${owner}). This window can read it but not change it; close the other window and reload this one to make changes here.`);
  }
}

/** A stored row does not match its schema (written by a newer version, or edited by hand). */
export class StoreDataError extends Error {
  override readonly name = 'StoreDataError';
  constructor(readonly table: string, readonly key: string, detail: string) {
    super(`Stored ${table} row ${key} is not valid: ${detail}. It was left in place; update Ideal State or remove the row.`);
  }
}
