/** The statements the store's database runs and the warnings it gives, apart from the database so its recovery can name them. */
export type SqlParam = string | number | null;
export interface SqlStatement {
  readonly sql: string;
  readonly params?: readonly SqlParam[];
}

export type StoreWarningKind = 'corrupt-database' | 'corrupt-journal' | 'torn-journal' | 'read-only' | 'newer-schema' | 'pending-write';
export interface StoreWarning {
  readonly kind: StoreWarningKind;
  readonly message: string;
  /** Where a damaged file was moved (or, for a journal, a copy of it kept), so nothing is ever silently deleted. */
  readonly movedTo?: string;
}
