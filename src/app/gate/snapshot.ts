import * as fs from 'node:fs/promises';
import { constants as fsConstants, copyFileSync, mkdirSync, readlinkSync, symlinkSync, utimesSync } from 'node:fs';
import * as path from 'node:path';
import type { ApprovedIgnores } from '../../verify/search-rules';
import { snapshotParent } from './snapshot-place';
import { removeOwnerSync, sweepStale, writeOwner } from './snapshot-sweep';
import { taskPool, walkSource, type Fingerprint, type WalkedSource } from './source-walk';

/**
 * The workspace as it was when the gate began, for its checks to run in: an agent (or a
 * process it left running) can change the live tree while the gate verifies it — a file that
 * exists only while a `gate` process does, a PRD swapped with a weakened copy every few
 * milliseconds — and a verdict must be about one state of the work, not several.
 *
 * The source is walked once (source-walk.ts: the walk is also the fingerprint compared after the
 * checks) and copied into a folder outside the workspace: a memory file system where one fits,
 * else the system's temporary folder (snapshot-place.ts; copy-on-write clones where the file system
 * can: `COPYFILE_FICLONE`), keeping modes and modification times so make and test caches judge
 * the copy as they would the original. What the `.gitignore` rules leave out (the rules a person
 * approved where the lock kept them, else those on disk), and the dependency and tool folders
 * that are never source (node_modules, .venv, …), are not copied: each is a symbolic link to the
 * live entry, since copying node_modules would cost seconds and its contents are not the agent's
 * work. That is safe as far as the lock and the guard reach: what a check executes from them (a
 * `node_modules/.bin` shim, the runner's configuration) is a locked input compared with the lock,
 * and the `.bin` entries and a locked shim's package are in the fingerprint compared after the
 * checks (linked-guard.ts). `.git` is a link too, so a check that
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
  /** Earlier copies in the same place whose owner process is gone, removed beside this one's checks (snapshot-sweep.ts). */
  readonly swept: readonly string[];
  /** Removes the copy (never what its links point to). */
  dispose(): Promise<void>;
}

export type SnapshotResult = { ok: true; snapshot: WorkspaceSnapshot } | { ok: false; message: string };

export interface SnapshotOptions {
  /** The `.gitignore` texts a person approved; absent: the files on disk decide. */
  approvedIgnores?: ApprovedIgnores;
  /** Where the copy goes (default: snapshot-place.ts chooses). */
  parent?: string;
  /** At most this many files are copied (default SNAPSHOT_FILE_LIMIT). */
  fileLimit?: number;
}

/** A workspace with more source files than this is verified as it is, with a note: a copy would cost the host's whole budget. */
export const SNAPSHOT_FILE_LIMIT = 50_000;

/** The name every snapshot folder begins with, the gate's and `verify`'s alike. */
export const SNAPSHOT_PREFIX = 'ideal-state-snapshot-';

export async function takeSnapshot(workspace: string, options: SnapshotOptions = {}): Promise<SnapshotResult> {
  const started = Date.now();
  const live = await fs.realpath(workspace).catch(() => path.resolve(workspace));
  const limit = options.fileLimit ?? SNAPSHOT_FILE_LIMIT;
  let walked: WalkedSource;
  try {
    // Walked before anything is copied: the bytes decide where the copy goes (snapshot-place.ts).
    walked = await walkSource(live, options.approvedIgnores, limit);
  } catch (error) {
    return { ok: false, message: `the workspace could not be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
  if (walked.over) return { ok: false, message: `the workspace has more than ${limit} source files to copy` };
  const place = options.parent !== undefined ? { folder: options.parent, memory: false } : await snapshotParent(walked.bytes);
  const parent = await fs.realpath(place.folder).catch(() => undefined);
  if (parent === undefined) return { ok: false, message: `the temporary folder ${place.folder} is not there` };
  const memory = place.memory;
  // A copy inside the workspace would be part of what it copies, and within the agent's reach.
  if (isInside(live, parent)) return { ok: false, message: `the temporary folder ${parent} is inside the workspace` };
  const root = await fs.mkdtemp(path.join(parent, SNAPSHOT_PREFIX));
  // Its owner beside it, and the copies left by owners killed outright removed (snapshot-sweep.ts).
  try {
    writeOwner(root);
  } catch {
    // No marker: this copy is only ever removed by its own process, as before.
  }
  const swept = sweepStale(parent, SNAPSHOT_PREFIX, root);
  const dispose = async () => {
    await swept.removed;
    await fs.rm(root, { recursive: true, force: true, maxRetries: 2 });
    removeOwnerSync(root);
  };
  const counts = { copied: 0, linked: 0, bytes: 0 };
  // On a memory file system a copy waits on no device: one at a time on this thread is several
  // times faster than through the thread pool (bench/gate.mjs). On a disk, many at a time.
  const pool: { add(task: () => Promise<void>, now: () => void): Promise<void>; drain(): Promise<void> } = memory ? syncPool() : taskPool(16);
  try {
    for (const e of walked.entries) {
      const from = path.join(live, e.relative);
      const to = path.join(root, e.relative);
      if (e.kind === 'folder') {
        // Made before what comes after it in the walk, which may go into it.
        mkdirSync(to);
      } else if (e.kind === 'left-out') {
        counts.linked++;
        await pool.add(() => fs.symlink(from, to), () => symlinkSync(from, to));
      } else if (e.kind === 'link') {
        counts.linked++;
        // A link is kept as written: a relative one resolves inside the copy, as in the workspace.
        await pool.add(
          async () => fs.symlink(await fs.readlink(from), to),
          () => symlinkSync(readlinkSync(from), to),
        );
      } else {
        const stat = e.stat;
        // Gone between the listing and the look: gone from the copy too (the fingerprint has no entry for it either).
        if (!stat) continue;
        counts.copied++;
        counts.bytes += stat.size;
        await pool.add(
          async () => {
            await fs.copyFile(from, to, fsConstants.COPYFILE_FICLONE);
            await fs.utimes(to, stat.atime, stat.mtime);
          },
          () => {
            // A memory file system has no clones: no failed attempt per file.
            copyFileSync(from, to);
            utimesSync(to, stat.atime, stat.mtime);
          },
        );
      }
    }
    await pool.drain();
  } catch (error) {
    await pool.drain().catch(() => undefined);
    await dispose().catch(() => undefined);
    return { ok: false, message: `the workspace could not be copied: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
  return { ok: true, snapshot: { root, workspace: live, ...counts, swept: swept.found, fingerprint: walked.fingerprint, ms: Date.now() - started, dispose } };
}

/** The task pool's shape, each task done at once on this thread (its synchronous form). */
function syncPool(): { add(task: () => Promise<void>, now: () => void): Promise<void>; drain(): Promise<void> } {
  return {
    add: async (_task, now) => now(),
    drain: async () => undefined,
  };
}

function isInside(folder: string, candidate: string): boolean {
  const r = path.relative(folder, candidate);
  return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
}
