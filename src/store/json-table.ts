import type { z } from 'zod';
import type { SqlParam, SqlStatement } from './durable-database';
import { StoreDataError } from './errors';

/** Where a repository sends its writes: straight to disk, or into a batch. */
export interface StatementSink {
  commit(statements: readonly SqlStatement[]): void;
}

export interface RowReader {
  query<T>(sql: string, params?: readonly SqlParam[]): T[];
}

export interface TableSpec<T> {
  readonly table: string;
  readonly schema: z.ZodType<T>;
  /** Indexed columns beside `data`, each computed from the entity; the key columns come first. */
  readonly columns: Readonly<Record<string, (row: T) => SqlParam>>;
  readonly key: readonly string[];
}

/**
 * Whether `upsertTrustedStatement` validates anyway. Off in the product (the engine's commit
 * path, where validating every written row again was the largest share of a commit's CPU);
 * on when IDEAL_STATE_VALIDATE_WRITES=1, and the unit tests turn it on for the whole suite
 * (test/unit/store/validate-writes.test.ts), so an engine change that builds a bad entity fails there.
 */
let validateTrustedWrites = process.env.IDEAL_STATE_VALIDATE_WRITES === '1';
export function setValidateTrustedWrites(on: boolean): void {
  validateTrustedWrites = on;
}

/**
 * One table of validated JSON entities. Writes through `save`/`upsertStatement` are validated
 * (anything from outside the engine: commands, views, imports); reads are always validated.
 * The engine's own commits use `upsertTrustedStatement`: entities it built, typed, from
 * entities it read (validated) or parsed (validated at the model/tool boundary).
 */
export class JsonTable<T> {
  private readonly upsertSql: string;

  constructor(private readonly spec: TableSpec<T>, private readonly reader: RowReader, private readonly sink: StatementSink) {
    const names = [...Object.keys(spec.columns), 'data'];
    // A true upsert, not INSERT OR REPLACE: REPLACE deletes the old row first, and with
    // ON DELETE CASCADE that silently deleted every child row (a run's events, packets …).
    const updates = names.filter((n) => !spec.key.includes(n)).map((n) => `${n} = excluded.${n}`);
    this.upsertSql = `INSERT INTO ${spec.table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ON CONFLICT (${spec.key.join(', ')}) DO UPDATE SET ${updates.join(', ')}`;
  }

  upsertStatement(entity: T): SqlStatement {
    const row = this.spec.schema.parse(entity);
    const params = Object.values(this.spec.columns).map((get) => get(row));
    return { sql: this.upsertSql, params: [...params, JSON.stringify(row)] };
  }

  /**
   * The upsert for an entity the engine built itself, without parsing it against the schema
   * again (unless validation of trusted writes is on); `json` is its JSON when the caller has
   * it already. A bad row still cannot be read back as good: reads are validated.
   */
  upsertTrustedStatement(entity: T, json?: string): SqlStatement {
    if (validateTrustedWrites) return this.upsertStatement(entity);
    const columns = Object.values(this.spec.columns);
    const params: SqlParam[] = new Array(columns.length + 1);
    for (let i = 0; i < columns.length; i++) params[i] = columns[i]!(entity);
    params[columns.length] = json ?? JSON.stringify(entity);
    return { sql: this.upsertSql, params };
  }

  /** Commits `upsertTrustedStatement` for each entity (see there). */
  saveTrusted(entities: readonly T[], json?: readonly (string | undefined)[]): void {
    this.sink.commit(entities.map((e, i) => this.upsertTrustedStatement(e, json?.[i])));
  }

  save(...entities: T[]): void {
    this.sink.commit(entities.map((e) => this.upsertStatement(e)));
  }

  /** Entities matching a WHERE clause over the indexed columns. */
  where(clause: string, params: readonly SqlParam[] = [], orderBy?: string, limit?: number): T[] {
    const keys = this.spec.key.join(', ');
    const sql = `SELECT ${keys}, data FROM ${this.spec.table}${clause ? ` WHERE ${clause}` : ''}${orderBy ? ` ORDER BY ${orderBy}` : ''}${limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(limit))}` : ''}`;
    return this.reader.query<Record<string, SqlParam>>(sql, params).map((row) => this.parse(row));
  }

  count(clause = '', params: readonly SqlParam[] = []): number {
    const rows = this.reader.query<{ n: number }>(`SELECT count(*) AS n FROM ${this.spec.table}${clause ? ` WHERE ${clause}` : ''}`, params);
    return rows[0]?.n ?? 0;
  }

  deleteStatement(clause: string, params: readonly SqlParam[]): SqlStatement {
    return { sql: `DELETE FROM ${this.spec.table} WHERE ${clause}`, params };
  }

  /** Deletes the rows matching a WHERE clause over the indexed columns, in one commit (or the batch's). */
  deleteWhere(clause: string, params: readonly SqlParam[]): void {
    this.sink.commit([this.deleteStatement(clause, params)]);
  }

  private parse(row: Record<string, SqlParam>): T {
    const key = this.spec.key.map((k) => String(row[k])).join('/');
    let json: unknown;
    try {
      json = JSON.parse(String(row.data));
    } catch {
      throw new StoreDataError(this.spec.table, key, 'its data is not JSON');
    }
    const parsed = this.spec.schema.safeParse(json);
    if (!parsed.success) throw new StoreDataError(this.spec.table, key, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    return parsed.data;
  }
}
