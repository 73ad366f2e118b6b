import * as fs from 'node:fs';
import * as os from 'node:os';

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
}

export type LockResult = { acquired: true; lock: WriterLock } | { acquired: false; owner: LockOwner | undefined };

/**
 * One writer per database: a lock file created exclusively, naming its owner. A lock
 * whose owner process is gone (same host, pid not alive) is stale and taken over.
 */
export class WriterLock {
  private constructor(private readonly path: string, private readonly owner: LockOwner) {}

  static acquire(path: string): LockResult {
    const owner: LockOwner = { pid: process.pid, host: os.hostname(), since: new Date().toISOString() };
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = fs.openSync(path, 'wx');
        fs.writeSync(fd, JSON.stringify(owner));
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        return { acquired: true, lock: new WriterLock(path, owner) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const current = readOwner(path);
      if (current && isAlive(current)) return { acquired: false, owner: current };
      // Stale (or unreadable, e.g. cut short by a crash while being written): take it over.
      fs.rmSync(path, { force: true });
    }
    return { acquired: false, owner: readOwner(path) };
  }

  release(): void {
    const current = readOwner(this.path);
    if (current && current.pid === this.owner.pid && current.host === this.owner.host) fs.rmSync(this.path, { force: true });
  }
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(path, 'utf8')) as Partial<LockOwner>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') {
      return { pid: parsed.pid, host: parsed.host, since: String(parsed.since ?? '') };
    }
  } catch {
    // unreadable: treated as stale by the caller
  }
  return undefined;
}

function isAlive(owner: LockOwner): boolean {
  // A lock from another machine (a shared folder) cannot be checked; respect it.
  if (owner.host !== os.hostname()) return true;
  if (owner.pid === process.pid) return true;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
