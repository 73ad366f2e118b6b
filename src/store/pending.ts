import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Writes that a one-shot process (the stop hook's `gate`) leaves for the store's next writer,
 * so its answer does not wait for SQLite: opening the store loads and compiles sql.js's WASM,
 * replays the journal, commits and checkpoints (bench/gate.mjs reports what that costs), where
 * a pending record is one small file. Each record is written beside the store in
 * `<store>.pending/`, flushed, and renamed into place: a process killed at any moment leaves
 * either the whole record or none (a `.tmp` that nothing reads). The next writable open of the
 * store folds every record in, oldest first, each in its own commit, and deletes it after.
 *
 * What a record means belongs to the layer that writes it (the store does not import the
 * verifier): a kind is folded by the applier that layer registers when it is loaded. A record
 * whose kind no loaded code knows stays for a process that knows it; one that cannot be read
 * is moved aside as `.damaged` and reported, never silently dropped.
 */
export interface PendingRecord {
  readonly kind: string;
  readonly writtenAt: string;
  readonly record: unknown;
}

export type PendingApplier<S> = (store: S, record: unknown) => void;

// Any: the registry is keyed by kind; each applier gets the Store it was registered for.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const appliers = new Map<string, PendingApplier<any>>();

/** The layer that writes records of `kind` says how to fold one into an open store. */
export function registerPendingKind<S>(kind: string, apply: PendingApplier<S>): void {
  appliers.set(kind, apply);
}

export function pendingFolder(storeFile: string): string {
  return `${path.resolve(storeFile)}.pending`;
}

let sequence = 0;

/**
 * Writes one record for the store's next writer: durable (fsync) and whole (rename) when
 * this returns. Returns the record's file. Names sort by time, then process, then sequence.
 */
export function writePending(storeFile: string, kind: string, record: unknown, now = new Date()): string {
  const folder = pendingFolder(storeFile);
  fs.mkdirSync(folder, { recursive: true });
  const name = `${now.getTime().toString().padStart(15, '0')}-${process.pid}-${sequence++}-${kind}.json`;
  const file = path.join(folder, name);
  const tmp = `${file}.tmp`;
  const body: PendingRecord = { kind, writtenAt: now.toISOString(), record };
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, JSON.stringify(body));
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  return file;
}

export interface FoldResult {
  readonly folded: number;
  /** Records no loaded code knows how to fold: left for a process that does. */
  readonly left: number;
  readonly problems: readonly string[];
}

/**
 * Folds every pending record of `storeFile` into `store` (open for writing), oldest first.
 * A record is deleted only after its commit; one whose applier throws stays and is reported,
 * so the next open tries again.
 */
export function foldPending<S>(store: S, storeFile: string): FoldResult {
  const folder = pendingFolder(storeFile);
  let names: string[];
  try {
    names = fs.readdirSync(folder).filter((n) => n.endsWith('.json')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { folded: 0, left: 0, problems: [] };
    return { folded: 0, left: 0, problems: [`the pending writes in ${folder} cannot be listed: ${(error as Error).message}`] };
  }
  let folded = 0;
  let left = 0;
  const problems: string[] = [];
  for (const name of names) {
    const file = path.join(folder, name);
    let body: PendingRecord;
    try {
      body = JSON.parse(fs.readFileSync(file, 'utf8')) as PendingRecord;
      if (typeof body?.kind !== 'string') throw new Error('it has no kind');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // another writer folded it first
      const aside = `${file}.damaged`;
      try {
        fs.renameSync(file, aside);
      } catch {
        // Left where it is; reported all the same.
      }
      problems.push(`the pending write ${file} cannot be read (${(error as Error).message}); moved to ${aside}`);
      continue;
    }
    const apply = appliers.get(body.kind);
    if (!apply) {
      left++;
      continue;
    }
    try {
      apply(store, body.record);
    } catch (error) {
      problems.push(`the pending write ${file} (${body.kind}) was not folded into the store: ${(error as Error).message}; it is tried again at the next open`);
      continue;
    }
    fs.rmSync(file, { force: true });
    folded++;
  }
  return { folded, left, problems };
}
