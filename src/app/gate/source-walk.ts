import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parseIgnoreFile } from '../../verify/glob';
import { ignoredBy, ignoreFileOf, type IgnoreLevel } from '../../verify/search-scope';
import { NEVER_SOURCE_FOLDERS, type ApprovedIgnores } from '../../verify/search-rules';
import { readRegularTextOrAbsent } from '../../verify/safe-read';

/** Never copied, never fingerprinted: git's own folder and the dependency and tool folders that are never source. */
const NEVER_COPIED = new Set(['.git', ...NEVER_SOURCE_FOLDERS]);

/** The live source at one moment, for workspace-fingerprint.ts. */
export interface Fingerprint {
  /** Workspace-relative path ('' the root) → what a change alters (a folder: only that it is one). */
  readonly entries: ReadonlyMap<string, string>;
  /** Workspace-relative path → change time (ms), files and folders. */
  readonly changed: ReadonlyMap<string, number>;
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
  const rulesOf = async (dir: string): Promise<IgnoreLevel> => {
    const file = ignoreFileOf(dir);
    const text = approved ? (approved.get(file) ?? undefined) : await readRegularTextOrAbsent(path.join(live, file));
    return { base: dir, rules: text ? parseIgnoreFile(text) : [] };
  };
  const queue: { dir: string; stack: IgnoreLevel[] }[] = [{ dir: '', stack: [await rulesOf('')] }];
  while (queue.length > 0) {
    const { dir, stack } = queue.shift()!;
    const entries = await fs.readdir(path.join(live, dir), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
      const isDir = entry.isDirectory();
      if (NEVER_COPIED.has(entry.name) || ignoredBy(stack, relative, isDir) || !(isDir || entry.isFile() || entry.isSymbolicLink())) yield { relative, kind: 'left-out' };
      else if (isDir) {
        yield { relative, kind: 'folder' };
        queue.push({ dir: relative, stack: [...stack, await rulesOf(relative)] });
      } else yield { relative, kind: entry.isSymbolicLink() ? 'link' : 'file' };
    }
  }
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
