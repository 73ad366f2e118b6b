import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic, Statement } from 'sql.js';
import { loadCheckpoint, removeCheckpointLeftovers, writeCheckpointFile } from './checkpoint-file';
import { ReadOnlyStoreError } from './errors';
import { JournalWriter } from './journal';
import { journalDamageWarning, replayJournal, runStatement, type JournalRecord } from './recovery';
import { loadSqlJs } from './sqljs';
import { WriterLock, type LockOwner } from './writer-lock';
import type { SqlParam, SqlStatement, StoreWarning } from './sql-types';

export type { SqlParam, SqlStatement, StoreWarning, StoreWarningKind } from './sql-types';


export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}


export interface DurableDatabaseOptions {
  /** The database file; its journal and lock live beside it. */
  readonly file: string;
  readonly migrations: readonly Migration[];
  readonly wasmPath?: string;
  /** Fold the journal into the file after this long without commits. */
  readonly checkpointIdleMs?: number;
  /** Fold the journal into the file once it grows past this, even while commits continue. */
  readonly checkpointJournalBytes?: number;
  /**
   * Open as a reader whatever the lock says: no writer lock taken, no folder made, nothing
   * written (a report over another program's store, which that program's writer owns).
   */
  readonly readOnly?: boolean;
}

/**
 * Per connection, so applied at open and again after each export (sql.js reopens the database).
 * The sql.js database lives in memory (Emscripten's in-memory file system): nothing SQLite
 * writes there survives the process, so its own rollback journal on that file system and its
 * syncs buy no durability and cost a file per transaction and a call out per sync. Durability
 * comes from our journal (appended and fdatasynced before `transact` returns) and the
 * checkpoint (written elsewhere, fsynced, renamed); a crash loses the in-memory database
 * whatever its settings, and `open` rebuilds it from those two. The rollback journal is kept
 * in memory rather than turned off because a failed commit still needs ROLLBACK.
 */
const PRAGMAS = 'PRAGMA foreign_keys = ON; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY;';
/** Distinct SQL texts kept prepared; a run's commits use a few dozen. */
const MAX_PREPARED = 256;

/**
 * A sql.js database made durable without exporting the whole file per commit: each commit
 * is applied in memory inside a transaction and appended,
 * synced, to a journal before it is acknowledged; the journal is folded into the
 * database file (written elsewhere, then renamed) when the store is idle.
 */
export class DurableDatabase {
  private lastSeq = 0;
  private checkpointTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Prepared statements by SQL text, reused across commits and queries (see `prepared`). */
  private readonly statements = new Map<string, Statement>();

  private constructor(
    private readonly db: Database,
    private readonly options: DurableDatabaseOptions,
    private readonly journal: JournalWriter | undefined,
    private readonly lock: WriterLock | undefined,
    readonly warnings: readonly StoreWarning[],
    readonly schemaVersion: number,
  ) {}

  get location(): string {
    return this.options.file;
  }

  get readOnly(): boolean {
    return this.journal === undefined;
  }

  get journalBytes(): number {
    return this.journal?.bytes ?? 0;
  }

  static async open(options: DurableDatabaseOptions): Promise<DurableDatabase> {
    const SQL = await loadSqlJs(options.wasmPath);
    if (options.readOnly) return DurableDatabase.load(SQL, options, undefined, []);
    fs.mkdirSync(path.dirname(options.file), { recursive: true });
    const locked = await WriterLock.acquire(`${options.file}.lock`);
    const lock = locked.acquired ? locked.lock : undefined;
    try {
      return DurableDatabase.load(SQL, options, lock, locked.acquired ? [] : [{ kind: 'read-only', message: new ReadOnlyStoreError(options.file, describeOwner(locked.owner)).message }]);
    } catch (error) {
      // Whatever failed, the next opener must not find a lock held by a process that gave up.
      lock?.release();
      throw error;
    }
  }

  /** Everything after the lock: the checkpoint, the journal replayed over it, migrations. */
  private static load(SQL: SqlJsStatic, options: DurableDatabaseOptions, lock: WriterLock | undefined, warnings: StoreWarning[]): DurableDatabase {
    const file = options.file;
    const journalPath = journalPathOf(file);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    if (lock) removeCheckpointLeftovers(file);

    const prepare = (database: Database) => database.exec(`${PRAGMAS} CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`);
    const loaded = loadCheckpoint(SQL, file, prepare);
    const db = 'db' in loaded ? loaded.db : new SQL.Database();
    let journal: JournalWriter | undefined;
    try {
      if ('damaged' in loaded) {
        prepare(db);
        warnings.push(lock ? moveDamagedAside(file, loaded.damaged, stamp) : { kind: 'corrupt-database', message: `The Ideal State database ${file} could not be read (${loaded.damaged}); showing an empty store until its writer moves it aside.` });
      }
      const checkpointSeq = Number(metaValue(db, 'checkpoint_seq') ?? 0);
      // A reader of a damaged file leaves the journal alone: its records belong to that file.
      const replay = 'damaged' in loaded && !lock ? { lastSeq: 0, validBytes: 0, damage: undefined } : replayJournal(db, journalPath, checkpointSeq);
      const damage = replay.damage;
      // A reader can find the live writer's commit half-appended: that is not damage.
      if (damage && (lock || damage.kind === 'corrupt')) {
        const copy = lock ? `${journalPath}.damaged-${stamp}` : undefined;
        if (copy) fs.copyFileSync(journalPath, copy);
        warnings.push(journalDamageWarning(journalPath, damage, checkpointSeq, copy));
      }
      journal = lock ? new JournalWriter(journalPath, replay.validBytes) : undefined;
      const store = new DurableDatabase(db, options, journal, lock, warnings, 0);
      store.lastSeq = replay.lastSeq;
      const version = store.migrate(options.migrations, warnings);
      (store as { schemaVersion: number }).schemaVersion = version;
      // A new database is written out at once, so its file exists from the first open.
      if (journal && !('db' in loaded && loaded.existed)) store.checkpoint();
      else if (journal && journal.bytes > 0) store.scheduleCheckpoint();
      return store;
    } catch (error) {
      journal?.close();
      db.close();
      throw error;
    }
  }

  /** Rows as plain objects. */
  query<T = Record<string, SqlParam>>(sql: string, params: readonly SqlParam[] = []): T[] {
    const statement = this.prepared(sql);
    try {
      statement.bind(params as SqlParam[]);
      const rows: T[] = [];
      while (statement.step()) rows.push(statement.getAsObject() as T);
      return rows;
    } finally {
      statement.reset();
    }
  }

  /**
   * Applies the statements atomically; when this returns, the change is on disk.
   * Throws (and changes nothing) if any statement fails or the store is read-only.
   */
  transact(statements: readonly SqlStatement[]): void {
    const journal = this.writableJournal();
    const seq = this.lastSeq + 1;
    this.db.exec('BEGIN');
    try {
      for (const s of statements) this.run(s);
      const record: JournalRecord = { seq, statements: [...statements] };
      journal.append(Buffer.from(JSON.stringify(record), 'utf8'));
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
    this.db.exec('COMMIT');
    this.lastSeq = seq;
    if (journal.bytes >= (this.options.checkpointJournalBytes ?? 8 * 1024 * 1024)) this.scheduleCheckpoint(0);
    else this.scheduleCheckpoint();
  }

  /** Folds the journal into the database file: write a temporary file, sync, rename. */
  checkpoint(): void {
    clearTimeout(this.checkpointTimer);
    this.checkpointTimer = undefined;
    const journal = this.journal;
    if (!journal || journal.bytes === 0) return;
    this.db.run("INSERT OR REPLACE INTO store_meta (key, value) VALUES ('checkpoint_seq', ?)", [String(this.lastSeq)]);
    // sql.js closes and reopens the database to export it, which ends every prepared statement.
    this.forgetStatements();
    const bytes = this.db.export();
    this.db.exec(PRAGMAS);
    writeCheckpointFile(this.options.file, bytes);
    journal.reset();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.checkpoint();
    } finally {
      this.forgetStatements();
      this.journal?.close();
      this.lock?.release();
      this.db.close();
    }
  }

  /**
   * The statement for a SQL text, prepared once and reused: preparing (parsing and planning
   * the SQL in SQLite) cost more than binding and running a row in a commit. Texts that vary
   * (IN lists, LIMITs) could grow the cache without end, so the least recently used go.
   */
  private prepared(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement) {
      this.statements.delete(sql);
    } else {
      statement = this.db.prepare(sql);
      if (this.statements.size >= MAX_PREPARED) {
        const [oldest, stale] = this.statements.entries().next().value as [string, Statement];
        this.statements.delete(oldest);
        stale.free();
      }
    }
    this.statements.set(sql, statement);
    return statement;
  }

  private forgetStatements(): void {
    for (const statement of this.statements.values()) statement.free();
    this.statements.clear();
  }

  /** One statement of a commit: with parameters through its prepared statement, without as a script (migrations). */
  private run(statement: SqlStatement): void {
    if (!statement.params || statement.params.length === 0) return void this.db.exec(statement.sql);
    const prepared = this.prepared(statement.sql);
    try {
      prepared.run(statement.params as SqlParam[]);
    } finally {
      prepared.reset();
    }
  }

  private writableJournal(): JournalWriter {
    if (this.closed) throw new Error('The Ideal State store is closed.');
    if (!this.journal) throw new ReadOnlyStoreError(this.options.file, 'another writer');
    return this.journal;
  }

  private scheduleCheckpoint(delayMs = this.options.checkpointIdleMs ?? 2000): void {
    clearTimeout(this.checkpointTimer);
    this.checkpointTimer = setTimeout(() => {
      if (!this.closed) this.checkpoint();
    }, delayMs);
    this.checkpointTimer.unref();
  }

  private migrate(migrations: readonly Migration[], warnings: StoreWarning[]): number {
    const current = Number(metaValue(this.db, 'schema_version') ?? 0);
    const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
    if (current > latest) {
      warnings.push({
        kind: 'newer-schema',
        message: `The Ideal State database ${this.options.file} has schema version ${current}, newer than this version of the extension understands (${latest}); update the extension.`,
      });
      return current;
    }
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (migration.version <= current) continue;
      const statements: SqlStatement[] = [
        { sql: migration.sql },
        { sql: "INSERT OR REPLACE INTO store_meta (key, value) VALUES ('schema_version', ?)", params: [String(migration.version)] },
      ];
      if (this.journal) this.transact(statements);
      else for (const s of statements) runStatement(this.db, s);
    }
    return Math.max(current, latest);
  }
}

/** Moves a damaged database file (and its journal, whose records belong to it) aside; nothing is deleted. */
function moveDamagedAside(file: string, damaged: string, stamp: string): StoreWarning {
  const movedTo = `${file}.corrupt-${stamp}`;
  fs.renameSync(file, movedTo);
  let message = `The Ideal State database ${file} could not be read (${damaged}) and was moved to ${movedTo}; a new, empty database was started.`;
  const journalPath = journalPathOf(file);
  // An empty journal holds nothing to keep.
  if (fs.existsSync(journalPath) && fs.statSync(journalPath).size > 0) {
    fs.renameSync(journalPath, `${journalPath}.corrupt-${stamp}`);
    message += ` Its journal was moved to ${journalPath}.corrupt-${stamp}.`;
  }
  return { kind: 'corrupt-database', message, movedTo };
}

export function journalPathOf(file: string): string {
  return `${file}.journal`;
}

function metaValue(db: Database, key: string): string | undefined {
  const result = db.exec('SELECT value FROM store_meta WHERE key = ?', [key]);
  const value = result[0]?.values[0]?.[0];
  return value === undefined || value === null ? undefined : String(value);
}

function describeOwner(owner: LockOwner | undefined): string {
  return owner ? `process ${owner.pid} on ${owner.host} since ${owner.since}` : 'an unknown process';
}
