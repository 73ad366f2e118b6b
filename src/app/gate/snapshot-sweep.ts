import { lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/**
 * A gate or `verify` killed outright (SIGKILL: no exit handler runs) leaves its snapshot behind,
 * and in `/dev/shm` a copy holds memory until the machine restarts. So each snapshot has an owner
 * marker, `<copy>.owner` beside it (not inside: a check that lists its folder or asks git about
 * it must see only the workspace's files), holding the owner's pid and, on Linux, its start time
 * (a pid the system gave again to another process is not the owner). When a snapshot is made,
 * the earlier copies in the same place whose owner is gone are removed: only folders named with
 * the snapshot prefix that have such a marker, belong to this user, and whose owner process no
 * longer runs. A copy whose owner runs is never touched.
 *
 * Finding them is a few ms at most (one listing, a look and a small read per candidate, at most
 * SWEEP_LIMIT candidates); removing them runs beside the checks and is awaited when the snapshot
 * is disposed. The marker is removed after its folder, so a removal cut short is finished by the
 * next sweep.
 */
export const OWNER_SUFFIX = '.owner';
export const SWEEP_LIMIT = 32;

export interface Owner {
  pid: number;
  /** /proc/<pid>/stat's start time (clock ticks after boot); absent where there is no /proc. */
  start?: string;
}

/** A process as a marker names it (default: this one). */
export function thisOwner(pid: number = process.pid): Owner {
  const start = startTimeOf(pid);
  return { pid, ...(start !== undefined ? { start } : {}) };
}

export function writeOwner(root: string, owner: Owner = thisOwner()): void {
  writeFileSync(root + OWNER_SUFFIX, JSON.stringify(owner), { mode: 0o600 });
}

/** The stale copies in `parent` (named `prefix…`), found now; their removal under way, settled by the promise. */
export function sweepStale(parent: string, prefix: string, except: string): { found: string[]; removed: Promise<void> } {
  const found: string[] = [];
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return { found, removed: Promise.resolve() };
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  for (const name of names) {
    if (found.length >= SWEEP_LIMIT) break;
    if (!name.startsWith(prefix) || !name.endsWith(OWNER_SUFFIX)) continue;
    const folder = path.join(parent, name.slice(0, -OWNER_SUFFIX.length));
    if (folder === except) continue;
    const marker = path.join(parent, name);
    const markerStat = lstatSync(marker, { throwIfNoEntry: false });
    const folderStat = lstatSync(folder, { throwIfNoEntry: false });
    if (!markerStat?.isFile() || (folderStat && !folderStat.isDirectory())) continue;
    if (uid !== undefined && (markerStat.uid !== uid || (folderStat && folderStat.uid !== uid))) continue;
    const owner = readOwner(marker);
    if (!owner || alive(owner)) continue;
    found.push(folder);
  }
  const removed = Promise.all(
    found.map(async (folder) => {
      await fs.rm(folder, { recursive: true, force: true, maxRetries: 2 });
      await fs.rm(folder + OWNER_SUFFIX, { force: true });
    }),
  ).then(
    () => undefined,
    () => undefined,
  );
  return { found, removed };
}

/** Removes a marker now (at the owner's exit, where nothing asynchronous runs). */
export function removeOwnerSync(root: string): void {
  rmSync(root + OWNER_SUFFIX, { force: true });
}

function readOwner(marker: string): Owner | undefined {
  try {
    const parsed = JSON.parse(readFileSync(marker, 'utf8').slice(0, 200)) as { pid?: unknown; start?: unknown };
    if (typeof parsed.pid !== 'number' || !Number.isInteger(parsed.pid) || parsed.pid <= 0) return undefined;
    return { pid: parsed.pid, ...(typeof parsed.start === 'string' ? { start: parsed.start } : {}) };
  } catch {
    return undefined;
  }
}

/** Whether the owner still runs: its pid answers, and where its start time was kept, it is the same process. */
function alive(owner: Owner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: a process runs with that pid (another user's): not ours to judge gone.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') return true;
    return false;
  }
  if (owner.start === undefined) return true;
  const now = startTimeOf(owner.pid);
  return now === undefined || now === owner.start;
}

/** Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function startTimeOf(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}
