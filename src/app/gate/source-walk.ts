import * as fs from 'node:fs/promises';
import { lstatSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { parseIgnoreFile } from '../../verify/glob';
import { ignoredBy, ignoreFileOf, type IgnoreLevel } from '../../verify/search-scope';
import { NEVER_SOURCE_FOLDERS, type ApprovedIgnores } from '../../verify/search-rules';
import { readRegularTextOrAbsent } from '../../verify/safe-read';

/** Never copied, never fingerprinted: git's own folder and the dependency and tool folders that are never source. */
const NEVER_COPIED = new Set(['.git', ...NEVER_SOURCE_FOLDERS]);

/** The ignore file a folder may hold (ignoreFileOf names its path). */
const IGNORE_FILE_NAME = '.gitignore';

/** The live source at one moment, for workspace-fingerprint.ts. */
export interface Fingerprint {
  /** Workspace-relative path ('' the root) → what a change alters (a folder: only that it is one). */
  readonly entries: ReadonlyMap<string, string>;
  /** Workspace-relative path → change time (ms), files and folders. */
  readonly changed: ReadonlyMap<string, number>;
  /** The entries left out (linked to from a snapshot), workspace-relative: linked-guard.ts looks into some. */
  readonly leftOut?: readonly string[];
}

/** A fingerprint's entry: a folder is one by its name; a file or link by its inode, size and times. */
export function entryOf(kind: 'file' | 'folder' | 'link', stat: { ino: number; size: number; mtimeMs: number; ctimeMs: number }): string {
  return kind === 'folder' ? 'folder' : `${kind} ${stat.ino} ${stat.size} ${stat.mtimeMs} ${stat.ctimeMs}`;
}

/** One entry of the workspace's source walk: a file to copy, a folder to enter, a link kept as written, or an entry left out (linked to). */
export interface SourceEntry {
  /** Workspace-relative, forward slashes. */
  relative: string;
  kind: 'file' | 'folder' | 'link' | 'left-out';
}

/**
 * The workspace's entries as a snapshot sees them, breadth first: ignored entries (by the
 * approved `.gitignore` texts, else those on disk), `.git` and the never-source folders are
 * `left-out` and not entered; so are FIFOs, sockets and devices. Symbolic links are not followed.
 */
export async function* sourceEntries(live: string, approvedIgnores?: ApprovedIgnores): AsyncGenerator<SourceEntry> {
  const approved = approvedIgnores ? new Map([...approvedIgnores.files].map(([f, t]) => [f.replace(/\\/g, '/').replace(/^(?:\.\/)+/, ''), t])) : undefined;
  // A folder's rules are read only where its listing has the file (or the approved texts name it):
  // most folders have none, and a look for a missing file costs as much as one that is there.
  const rulesOf = async (dir: string, listed: boolean): Promise<IgnoreLevel> => {
    const file = ignoreFileOf(dir);
    const text = approved ? (approved.get(file) ?? undefined) : listed ? await readRegularTextOrAbsent(path.join(live, file)) : undefined;
    return { base: dir, rules: text ? parseIgnoreFile(text) : [] };
  };
  const queue: { dir: string; above: IgnoreLevel[] }[] = [{ dir: '', above: [] }];
  while (queue.length > 0) {
    const { dir, above } = queue.shift()!;
    // Listed synchronously: a walk does nothing else meanwhile, and a thousand listings through the
    // thread pool cost several times more on a busy machine (bench/gate.mjs).
    const entries = readdirSync(path.join(live, dir), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const stack = [...above, await rulesOf(dir, entries.some((e) => e.name === IGNORE_FILE_NAME))];
    for (const entry of entries) {
      const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
      const isDir = entry.isDirectory();
      if (NEVER_COPIED.has(entry.name) || ignoredBy(stack, relative, isDir) || !(isDir || entry.isFile() || entry.isSymbolicLink())) yield { relative, kind: 'left-out' };
      else if (isDir) {
        yield { relative, kind: 'folder' };
        queue.push({ dir: relative, above: stack });
      } else yield { relative, kind: entry.isSymbolicLink() ? 'link' : 'file' };
    }
  }
}

/** An entry of the walk with what a fingerprint and a copy need of it. */
export interface WalkedEntry extends SourceEntry {
  /** Absent for a left-out entry (never looked at), and for one gone between the listing and the look. */
  stat?: { ino: number; size: number; mtimeMs: number; ctimeMs: number; atime: Date; mtime: Date };
}

/** The source walked once: its entries in walk order (a folder before what is in it), its fingerprint, its files' bytes. */
export interface WalkedSource {
  readonly entries: readonly WalkedEntry[];
  readonly fingerprint: Fingerprint;
  readonly files: number;
  readonly bytes: number;
  /** The walk stopped at `limit` files: what is past it is neither listed nor fingerprinted. */
  readonly over: boolean;
}

/**
 * One walk of the live source, each entry looked at once (lstat, many at a time): the snapshot
 * copies from it and keeps it as the fingerprint it compares after the checks, so the source is
 * walked twice per gate run, not three times.
 */
export async function walkSource(live: string, approvedIgnores: ApprovedIgnores | undefined, limit: number): Promise<WalkedSource> {
  const entries: WalkedEntry[] = [];
  const fingerprintEntries = new Map<string, string>();
  const changed = new Map<string, number>();
  const top = await fs.lstat(live);
  fingerprintEntries.set('', 'folder');
  changed.set('', top.ctimeMs);
  let files = 0;
  let bytes = 0;
  let over = false;
  for await (const e of sourceEntries(live, approvedIgnores)) {
    if (e.kind === 'file' && ++files > limit) {
      over = true;
      break;
    }
    const walked: WalkedEntry = { ...e };
    entries.push(walked);
    if (e.kind === 'left-out') continue;
    // Looked at synchronously, as listed: see sourceEntries.
    const stat = lstatSync(path.join(live, e.relative), { throwIfNoEntry: false });
    if (!stat) continue;
    walked.stat = stat;
    if (e.kind === 'file') bytes += stat.size;
    changed.set(e.relative, stat.ctimeMs);
    fingerprintEntries.set(e.relative, entryOf(e.kind as 'file' | 'folder' | 'link', stat));
  }
  const leftOut = entries.filter((e) => e.kind === 'left-out').map((e) => e.relative);
  return { entries, fingerprint: { entries: fingerprintEntries, changed, leftOut }, files: Math.min(files, limit), bytes, over };
}

/**
 * At most `limit` file-system tasks at once (the walk's copies and looks are independent of each
 * other): a sequential walk waits on one system call at a time, a pool keeps the thread pool busy.
 * The first failure is thrown by `drain`, after the rest have settled.
 */
export function taskPool(limit: number): { add(task: () => Promise<void>): Promise<void>; drain(): Promise<void> } {
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  return {
    async add(task) {
      if (failure) throw failure.error;
      while (running.size >= limit) await Promise.race(running);
      const p: Promise<void> = task()
        .catch((error: unknown) => {
          failure ??= { error };
        })
        .finally(() => running.delete(p));
      running.add(p);
    },
    async drain() {
      await Promise.all(running);
      if (failure) throw failure.error;
    },
  };
}
