import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Where a snapshot of the workspace goes. Creating a thousand small files on a disk file system
 * costs most of a second on a busy machine (a journal entry each, and as much again to remove
 * them); on a memory file system it costs some 40 ms (bench/gate.mjs). So on Linux the copy goes
 * to `/dev/shm` when that is a memory file system (tmpfs) that lets programs run (a check may run
 * a script from the copy: Docker mounts its `/dev/shm` `noexec`) and has room to spare: four times
 * the source's bytes free, and the source at most MEMORY_COPY_LIMIT. Otherwise, and on other
 * systems, the system's temporary folder (where the file system can, its copies are copy-on-write
 * clones: APFS, Btrfs, XFS).
 *
 * Every verification that runs its checks in a snapshot picks its place here, the stop gate and
 * `ideal-state verify` alike, so a check sees the same kind of path under both.
 */
export const MEMORY_COPY_LIMIT = 256 * 1024 * 1024;

const MEMORY_FOLDER = '/dev/shm';

export async function snapshotParent(sourceBytes: number, options: { mounts?: string; memoryFolder?: string } = {}): Promise<{ folder: string; memory: boolean }> {
  const memory = options.memoryFolder ?? MEMORY_FOLDER;
  if (process.platform === 'linux' && sourceBytes <= MEMORY_COPY_LIMIT && (await memoryFits(memory, sourceBytes, options.mounts))) return { folder: memory, memory: true };
  return { folder: os.tmpdir(), memory: false };
}

async function memoryFits(folder: string, bytes: number, mountsText?: string): Promise<boolean> {
  const real = await fs.realpath(folder).catch(() => undefined);
  if (real === undefined) return false;
  const mounts = mountsText ?? (await fs.readFile('/proc/self/mounts', 'utf8').catch(() => ''));
  const mount = mountOf(real, mounts);
  if (!mount || mount.type !== 'tmpfs' || mount.options.includes('noexec') || mount.options.includes('ro')) return false;
  try {
    await fs.access(real, fs.constants.W_OK | fs.constants.X_OK);
    const free = await fs.statfs(real);
    return free.bavail * free.bsize >= 4 * bytes;
  } catch {
    return false;
  }
}

/** The mount a folder is on: the longest mount point that contains it (the last such line wins, as later mounts cover earlier ones). */
export function mountOf(folder: string, mountsText: string): { point: string; type: string; options: string[] } | undefined {
  let best: { point: string; type: string; options: string[] } | undefined;
  for (const line of mountsText.split('\n')) {
    const [, point, type, options] = line.split(' ');
    if (!point || !type || options === undefined) continue;
    // /proc/mounts writes a space in a mount point as \040.
    const decoded = point.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    const inside = decoded === '/' || folder === decoded || folder.startsWith(decoded.endsWith(path.sep) ? decoded : decoded + path.sep);
    if (inside && (!best || decoded.length >= best.point.length)) best = { point: decoded, type, options: options.split(',') };
  }
  return best;
}
