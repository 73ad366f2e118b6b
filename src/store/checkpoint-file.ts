import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';

/** The database file as loaded: a database, or why it is damaged (for the user). */
export type LoadedCheckpoint = { readonly db: Database; readonly existed: boolean } | { readonly damaged: string };

/**
 * Reads the database file (the last checkpoint) into sql.js. Anything SQLite cannot use
 * is damage, found here rather than by the first command that touches the store: a bad
 * header, a file cut short, a failed quick_check, or a statement of `prepare` (the
 * connection's pragmas, the store's own table) that SQLite refuses on this file.
 */
export function loadCheckpoint(SQL: SqlJsStatic, file: string, prepare: (db: Database) => void): LoadedCheckpoint {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const db = new SQL.Database();
    prepare(db);
    return { db, existed: false };
  }
  // The file is only ever replaced whole, so an empty one is damage, not a new database.
  if (bytes.length === 0) return { damaged: 'it is empty' };
  const problem = headerProblem(bytes);
  if (problem) return { damaged: problem };
  let db: Database | undefined;
  try {
    db = new SQL.Database(bytes);
    const check = db.exec('PRAGMA quick_check');
    const verdict = check[0]?.values[0]?.[0];
    if (verdict !== 'ok') throw new Error(`quick_check: ${String(verdict)}`);
    db.exec('SELECT count(*) FROM sqlite_master');
    prepare(db);
    return { db, existed: true };
  } catch (error) {
    db?.close();
    return { damaged: `SQLite cannot use it: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * What is wrong with an SQLite header (https://sqlite.org/fileformat.html#the_database_header),
 * in the fields that SQLite trusts without checking: the text encoding at byte 56 (a bad one
 * made every statement fail with an encoding message) and the database size at byte 28.
 */
function headerProblem(bytes: Buffer): string | undefined {
  if (bytes.length < 100 || bytes.toString('latin1', 0, 16) !== 'SQLite format 3\0') return 'it does not start with an SQLite header';
  const rawPageSize = bytes.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return `its header gives a page size of ${rawPageSize} (byte 16)`;
  // SQLite reads the low two bits (0 for a new file means UTF-8); a value whose bits say none
  // passes the first read and fails every statement after; 2 and 3 (UTF-16) misread our UTF-8.
  const encoding = bytes.readUInt32BE(56);
  if (encoding !== 0 && (encoding & 3) !== 1) return `its header's text encoding (bytes 56–59) is ${encoding}, not UTF-8 (1), which is all Ideal State writes`;
  // The size in pages is valid only when the change counter matches its "version valid for" copy.
  const pages = bytes.readUInt32BE(28);
  if (pages > 0 && bytes.readUInt32BE(24) === bytes.readUInt32BE(92) && pages * pageSize > bytes.length) {
    return `it is cut short: its header says ${pages * pageSize} bytes, the file has ${bytes.length}`;
  }
  return undefined;
}

/**
 * Writes the database file whole: a temporary file named for this process (two processes
 * can never rename each other's), synced, then renamed over the file.
 */
export function writeCheckpointFile(file: string, bytes: Uint8Array): void {
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  const fd = fs.openSync(temporary, 'wx');
  try {
    try {
      let written = 0;
      while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  syncDirectory(path.dirname(file));
}

/**
 * Checkpoint files a writer left half-written when it died (`FILE.tmp` from older versions,
 * `FILE.<pid>.<random>.tmp`). Only the writer calls this, and only one writer exists, so
 * every such file is a leftover.
 */
export function removeCheckpointLeftovers(file: string): void {
  const base = path.basename(file);
  const pattern = /^\.\d+\.[0-9a-f]+\.tmp$/;
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(file));
  } catch {
    return;
  }
  for (const name of names) {
    if (name === `${base}.tmp` || (name.startsWith(base) && pattern.test(name.slice(base.length)))) fs.rmSync(path.join(path.dirname(file), name), { force: true });
  }
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
