import * as fs from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApprovedIgnores } from '../../verify/search-rules';
import { entryOf, sourceEntries, taskPool, type Fingerprint } from './source-walk';

/**
 * The workspace as it was when the gate began, for its checks to run in: an agent (or a
 * process it left running) can change the live tree while the gate verifies it — a file that
 * exists only while a `gate` process does, a PRD swapped with a weakened copy every few
 * milliseconds — and a verdict must be about one state of the work, not several.
 *
 * The source is copied into a folder outside the workspace (copy-on-write where the file system
 * can: `COPYFILE_FICLONE`), keeping modes and modification times so make and test caches judge
 * the copy as they would the original. What the `.gitignore` rules leave out (the rules a person
 * approved where the lock kept them, else those on disk), and the dependency and tool folders
 * that are never source (node_modules, .venv, …), are not copied: each is a symbolic link to the
 * live entry, since copying node_modules would cost seconds and its contents are not the agent's
 * work. That is safe as far as the lock reaches: what a check executes from them (a
 * `node_modules/.bin` shim, the runner's configuration) is a locked input compared with the lock
 * and again after the checks (workspace-fingerprint.ts). `.git` is a link too, so a check that
 * asks git about the work still can. FIFOs, sockets and devices are links as well: they are
 * never read by copying.
 */
export interface WorkspaceSnapshot {
  /** The copy's root (real path, outside the workspace). */
  readonly root: string;
  /** The live workspace it was taken from. */
  readonly workspace: string;
  /** Files copied, entries linked, bytes copied, milliseconds taken. */
  readonly copied: number;
  readonly linked: number;
  readonly bytes: number;
  readonly ms: number;
  /** The live source as it was copied (workspace-fingerprint.ts compares it with the source after the checks). */
  readonly fingerprint: Fingerprint;
  /** Removes the copy (never what its links point to). */
  dispose(): Promise<void>;
}

export type SnapshotResult = { ok: true; snapshot: WorkspaceSnapshot } | { ok: false; message: string };

export interface SnapshotOptions {
  /** The `.gitignore` texts a person approved; absent: the files on disk decide. */
  approvedIgnores?: ApprovedIgnores;
  /** Where the copy goes (default: the system's temporary folder). */
  parent?: string;
  /** At most this many files are copied (default SNAPSHOT_FILE_LIMIT). */
  fileLimit?: number;
}

/** A workspace with more source files than this is verified as it is, with a note: a copy would cost the host's whole budget. */
export const SNAPSHOT_FILE_LIMIT = 50_000;

export async function takeSnapshot(workspace: string, options: SnapshotOptions = {}): Promise<SnapshotResult> {
  const started = performance.now();
  const live = await fs.realpath(workspace).catch(() => path.resolve(workspace));
  const parent = await fs.realpath(options.parent ?? os.tmpdir()).catch(() => undefined);
  if (parent === undefined) return { ok: false, message: `the temporary folder ${options.parent ?? os.tmpdir()} is not there` };
  // A copy inside the workspace would be part of what it copies, and within the agent's reach.
  if (isInside(live, parent)) return { ok: false, message: `the temporary folder ${parent} is inside the workspace` };
  const root = await fs.mkdtemp(path.join(parent, 'ideal-state-snapshot-'));
  const dispose = () => fs.rm(root, { recursive: true, force: true, maxRetries: 2 });
  const counts = { copied: 0, linked: 0, bytes: 0 };
  const entries = new Map<string, string>();
  const changed = new Map<string, number>();
  const note = (relative: string, kind: 'file' | 'folder' | 'link', stat: { ino: number; size: number; mtimeMs: number; ctimeMs: number }) => {
    entries.set(relative, entryOf(kind, stat));
    changed.set(relative, stat.ctimeMs);
  };
  const limit = options.fileLimit ?? SNAPSHOT_FILE_LIMIT;
  const pool = taskPool(16);
  try {
    note('', 'folder', await fs.lstat(live));
    for await (const e of sourceEntries(live, options.approvedIgnores)) {
      const from = path.join(live, e.relative);
      const to = path.join(root, e.relative);
      if (e.kind === 'folder') {
        // Awaited: what the walk yields next may go into it.
        note(e.relative, 'folder', await fs.lstat(from));
        await fs.mkdir(to);
      } else if (e.kind === 'left-out') {
        counts.linked++;
        await pool.add(() => fs.symlink(from, to));
      } else if (e.kind === 'link') {
        counts.linked++;
        await pool.add(async () => {
          note(e.relative, 'link', await fs.lstat(from));
          // A link is kept as written: a relative one resolves inside the copy, as in the workspace.
          await fs.symlink(await fs.readlink(from), to);
        });
      } else {
        if (++counts.copied > limit) {
          await pool.drain().catch(() => undefined);
          await dispose();
          return { ok: false, message: `the workspace has more than ${limit} source files to copy` };
        }
        await pool.add(async () => {
          const stat = await fs.lstat(from);
          note(e.relative, 'file', stat);
          await fs.copyFile(from, to, fsConstants.COPYFILE_FICLONE);
          await fs.utimes(to, stat.atime, stat.mtime);
          counts.bytes += stat.size;
        });
      }
    }
    await pool.drain();
  } catch (error) {
    await pool.drain().catch(() => undefined);
    await dispose().catch(() => undefined);
    return { ok: false, message: `the workspace could not be copied: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
  return { ok: true, snapshot: { root, workspace: live, ...counts, fingerprint: { entries, changed }, ms: Math.round(performance.now() - started), dispose } };
}

function isInside(folder: string, candidate: string): boolean {
  const r = path.relative(folder, candidate);
  return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
}
