import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic, Statement } from 'sql.js';
import { ReadOnlyStoreError } from './errors';
import { JournalWriter, readJournal } from './journal';
import { loadSqlJs } from './sqljs';
import { WriterLock, type LockOwner } from './writer-lock';

export type SqlParam = string | number | null;
export interface SqlStatement {
  readonly sql: string;
  readonly params?: readonly SqlParam[];
}

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export type StoreWarningKind = 'corrupt-database' | 'corrupt-journal' | 'torn-journal' | 'read-only' | 'newer-schema';
export interface StoreWarning {
  readonly kind: StoreWarningKind;
  readonly message: string;
  /** Where a damaged file was moved, so nothing is ever silently deleted. */
  readonly movedTo?: string;
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
}

interface JournalRecord {
  readonly seq: number;
  readonly statements: SqlStatement[];
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
 * A sql.js database made durable without exporting the whole file per commit
 * (DESIGN §8): each commit is applied in memory inside a transaction and appended,
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
    const file = options.file;
    const journalPath = journalPathOf(file);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const warnings: StoreWarning[] = [];
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');

    const locked = WriterLock.acquire(`${file}.lock`);
    const lock = locked.acquired ? locked.lock : undefined;
    if (!locked.acquired) {
      warnings.push({ kind: 'read-only', message: new ReadOnlyStoreError(file, describeOwner(locked.owner)).message });
    } else {
      fs.rmSync(`${file}.tmp`, { force: true });
    }

    let db = loadCheckpoint(SQL, file);
    if (db === 'corrupt') {
      db = new SQL.Database();
      if (lock) {
        const movedTo = `${file}.corrupt-${stamp}`;
        fs.renameSync(file, movedTo);
        let message = `The Ideal State database ${file} could not be read and was moved to ${movedTo}; a new, empty database was started.`;
        if (fs.existsSync(journalPath)) {
          fs.renameSync(journalPath, `${journalPath}.corrupt-${stamp}`);
          message += ` Its journal was moved to ${journalPath}.corrupt-${stamp}.`;
        }
        warnings.push({ kind: 'corrupt-database', message, movedTo });
      } else {
        warnings.push({ kind: 'corrupt-database', message: `The Ideal State database ${file} could not be read; showing an empty store until its writer repairs it.` });
      }
    }
    db.exec(`${PRAGMAS} CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`);
    const checkpointSeq = Number(metaValue(db, 'checkpoint_seq') ?? 0);

    const contents = readJournal(journalPath);
    let lastSeq = checkpointSeq;
    let validBytes = contents.validBytes;
    let damagedAt: number | undefined = contents.tail.kind === 'corrupt' ? contents.tail.offset : undefined;
    let offset = 0;
    for (const payload of contents.records) {
      const record = parseRecord(payload);
      if (!record || !applyRecord(db, record, checkpointSeq)) {
        damagedAt = offset;
        validBytes = offset;
        break;
      }
      lastSeq = Math.max(lastSeq, record.seq);
      offset += payload.length + 8;
    }
    if (damagedAt !== undefined) {
      const movedTo = `${journalPath}.corrupt-${stamp}`;
      if (lock) fs.copyFileSync(journalPath, movedTo);
      warnings.push({
        kind: 'corrupt-journal',
        message: `The Ideal State journal ${journalPath} is damaged at byte ${damagedAt}; changes before that point were recovered${lock ? ` and a copy of the whole journal was kept at ${movedTo}` : ''}.`,
        movedTo: lock ? movedTo : undefined,
      });
    } else if (contents.tail.kind === 'torn') {
      warnings.push({ kind: 'torn-journal', message: `Dropped ${contents.tail.bytes} bytes of a commit that was interrupted before it was acknowledged.` });
    }

    const journal = lock ? new JournalWriter(journalPath, validBytes) : undefined;
    const store = new DurableDatabase(db, options, journal, lock, warnings, 0);
    store.lastSeq = lastSeq;
    const version = store.migrate(options.migrations, warnings);
    (store as { schemaVersion: number }).schemaVersion = version;
    // A new database is written out at once, so its file exists from the first open.
    if (journal && !fs.existsSync(file)) store.checkpoint();
    else if (journal && journal.bytes > 0) store.scheduleCheckpoint();
    return store;
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
    writeFileAtomic(this.options.file, bytes);
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
      else for (const s of statements) run(this.db, s);
    }
    return Math.max(current, latest);
  }
}

export function journalPathOf(file: string): string {
  return `${file}.journal`;
}

function run(db: Database, statement: SqlStatement): void {
  if (statement.params && statement.params.length > 0) db.run(statement.sql, statement.params as SqlParam[]);
  else db.exec(statement.sql);
}

function loadCheckpoint(SQL: SqlJsStatic, file: string): Database | 'corrupt' {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new SQL.Database();
    throw error;
  }
  // The file is only ever replaced whole, so an empty one is damage, not a new database.
  if (bytes.length === 0) return 'corrupt';
  let db: Database | undefined;
  try {
    db = new SQL.Database(bytes);
    const check = db.exec('PRAGMA quick_check');
    if (check[0]?.values[0]?.[0] !== 'ok') throw new Error('quick_check failed');
    db.exec('SELECT count(*) FROM sqlite_master');
    return db;
  } catch {
    db?.close();
    return 'corrupt';
  }
}

function metaValue(db: Database, key: string): string | undefined {
  const result = db.exec('SELECT value FROM store_meta WHERE key = ?', [key]);
  const value = result[0]?.values[0]?.[0];
  return value === undefined || value === null ? undefined : String(value);
}

function parseRecord(payload: Buffer): JournalRecord | undefined {
  try {
    const record = JSON.parse(payload.toString('utf8')) as JournalRecord;
    if (typeof record.seq === 'number' && Array.isArray(record.statements)) return record;
  } catch {
    // fall through: reported as damage by the caller
  }
  return undefined;
}

/** Applies one journal record unless the checkpoint already holds it. */
function applyRecord(db: Database, record: JournalRecord, checkpointSeq: number): boolean {
  if (record.seq <= checkpointSeq) return true;
  db.exec('BEGIN');
  try {
    for (const s of record.statements) run(db, s);
    db.exec('COMMIT');
    return true;
  } catch {
    db.exec('ROLLBACK');
    return false;
  }
}

function writeFileAtomic(file: string, bytes: Uint8Array): void {
  const temporary = `${file}.tmp`;
  const fd = fs.openSync(temporary, 'w');
  try {
    let written = 0;
    while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, file);
  syncDirectory(path.dirname(file));
}

function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some platforms (Windows) cannot open a directory; the rename is still atomic there.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function describeOwner(owner: LockOwner | undefined): string {
  return owner ? `process ${owner.pid} on ${owner.host} since ${owner.since}` : 'an unknown process';
}
