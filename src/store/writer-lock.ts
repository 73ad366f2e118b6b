import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
  /** Unique to one acquisition, so a lock is never mistaken for another with the same pid. */
  readonly token?: string;
}

export type LockResult = { acquired: true; lock: WriterLock } | { acquired: false; owner: LockOwner | undefined };

/** How long an opener waits for another process that is in the middle of taking over a stale lock. */
const TAKEOVER_WAIT_MS = 3000;
/** A lock file that cannot be read is being written (no hard links here) unless it is older than this. */
const UNREADABLE_STALE_MS = 10_000;
/** Guards of guards: each level is one process killed in the middle of a takeover. */
const MAX_TAKEOVER_DEPTH = 8;
const TOKEN = /^[0-9a-f]{16,64}$/;
/** Errors of a hard link where the file system has none (FAT, some network shares). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EINVAL']);

/** Tokens this process holds, so a lock naming our own pid but not one of these is a dead predecessor's. */
const held = new Set<string>();

/** A lock file as read: who holds it, and an identity no other lock file will ever have. */
interface LockState {
  readonly owner: LockOwner | undefined;
  readonly identity: string;
  readonly ageMs: number;
}

type Takeover = { result: 'won' } | { result: 'lost' } | { result: 'busy'; owner: LockOwner | undefined };

/**
 * One writer per database. The lock file appears whole and exclusively (a hard link from a
 * finished temporary file; `wx` where there are no hard links), naming its owner and a unique
 * token. A lock whose owner is gone (same host, pid not alive) is stale; replacing it is where
 * two processes could both get in (both read "stale", one deletes and creates, the other
 * deletes that), so a takeover is itself exclusive: only the process that creates the guard
 * file `LOCK.takeover-<identity of the stale lock>` may replace that lock, and only after
 * reading it again and finding the same identity. The replacement is a rename, so the lock
 * never disappears on the way and no fresh opener can slip in. A guard left by a process killed
 * mid-takeover is stale the same way and is taken over by the same rule, one level up.
 */
export class WriterLock {
  private constructor(
    private readonly file: string,
    private readonly owner: LockOwner,
  ) {}

  static async acquire(file: string): Promise<LockResult> {
    const me: LockOwner = { pid: process.pid, host: os.hostname(), since: new Date().toISOString(), token: crypto.randomBytes(16).toString('hex') };
    held.add(me.token!);
    let result: LockResult | undefined;
    try {
      result = await WriterLock.attempt(file, me);
      return result;
    } finally {
      if (!result?.acquired) held.delete(me.token!);
    }
  }

  private static async attempt(file: string, me: LockOwner): Promise<LockResult> {
    const deadline = Date.now() + TAKEOVER_WAIT_MS;
    let busy: LockOwner | undefined;
    for (;;) {
      if (createExclusive(file, me)) return { acquired: true, lock: WriterLock.won(file, me) };
      const current = readLock(file);
      if (current && !isStale(current)) return { acquired: false, owner: current.owner };
      if (current) {
        const takeover = takeOver(file, file, current, me, 0);
        if (takeover.result === 'won') return { acquired: true, lock: WriterLock.won(file, me) };
        if (takeover.result === 'busy') busy = takeover.owner;
      }
      // Gone between the create and the read, or someone else is replacing it: look again.
      if (Date.now() > deadline) return { acquired: false, owner: busy ?? readLock(file)?.owner };
      await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 8));
    }
  }

  /** Removes the lock if it is still ours (it is: nobody takes over a live owner's lock). */
  release(): void {
    held.delete(this.owner.token!);
    if (readLock(this.file)?.identity === this.owner.token) fs.rmSync(this.file, { force: true });
  }

  private static won(file: string, owner: LockOwner): WriterLock {
    try {
      removeLeftovers(file, owner.token!);
    } catch {
      // Tidying only: a leftover that cannot be read or removed changes nothing about who writes.
    }
    return new WriterLock(file, owner);
  }
}

/**
 * Replaces `target` (the lock, or a guard left by a dead process) with our own, if it still is
 * the `stale` one we read. `lockFile` names where guards live.
 */
function takeOver(lockFile: string, target: string, stale: LockState, me: LockOwner, depth: number): Takeover {
  const guard = `${lockFile}.takeover-${stale.identity}`;
  if (!createExclusive(guard, me)) {
    const holder = readLock(guard);
    if (!holder) return { result: 'lost' };
    if (!isStale(holder) || depth >= MAX_TAKEOVER_DEPTH) return { result: 'busy', owner: holder.owner };
    const inner = takeOver(lockFile, guard, holder, me, depth + 1);
    if (inner.result !== 'won') return inner;
  }
  // The guard is ours: nobody else may replace a file whose identity is stale.identity now.
  try {
    if (readLock(target)?.identity !== stale.identity) return { result: 'lost' };
    try {
      replaceWith(target, me);
    } catch (error) {
      // Windows refuses a rename over a file another process has open for a moment: try again.
      if (['EPERM', 'EBUSY', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? '')) return { result: 'busy', owner: stale.owner };
      throw error;
    }
    return { result: 'won' };
  } finally {
    fs.rmSync(guard, { force: true });
  }
}

/** Creates `file` holding `owner` if no such file exists; false if one does. Never visible half-written where hard links exist. */
function createExclusive(file: string, owner: LockOwner): boolean {
  const text = JSON.stringify(owner);
  const temporary = temporaryName(file);
  fs.writeFileSync(temporary, text, { flag: 'wx' });
  try {
    fs.linkSync(temporary, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return false;
    if (!NO_HARD_LINKS.has(code)) throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  try {
    fs.writeFileSync(file, text, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function replaceWith(file: string, owner: LockOwner): void {
  const temporary = temporaryName(file);
  fs.writeFileSync(temporary, JSON.stringify(owner), { flag: 'wx' });
  try {
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/** `LOCK.<host hash>-<pid>-<random>.tmp`: unique, and says whose it is for the clean-up. */
function temporaryName(file: string): string {
  return `${file}.${hostHash()}-${process.pid}-${crypto.randomBytes(6).toString('hex')}.tmp`;
}

function hostHash(): string {
  return crypto.createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);
}

function readLock(file: string): LockState | undefined {
  let bytes: Buffer;
  let stat: fs.Stats;
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    // One descriptor, so the bytes and the inode are of the same file even if it is replaced meanwhile.
    stat = fs.fstatSync(fd);
    bytes = fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  const ageMs = Date.now() - stat.mtimeMs;
  // Without a token (older versions, or damage) the identity is the bytes and the inode: a
  // later lock file is another inode or other bytes.
  const fallback = `h${crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 24)}i${stat.ino}`;
  try {
    const parsed = JSON.parse(bytes.toString('utf8')) as Partial<LockOwner>;
    // A pid of 0 or less would make the liveness check signal a process group: not an owner.
    if (Number.isInteger(parsed.pid) && parsed.pid! > 0 && typeof parsed.host === 'string') {
      const token = typeof parsed.token === 'string' && TOKEN.test(parsed.token) ? parsed.token : undefined;
      const owner: LockOwner = { pid: parsed.pid!, host: parsed.host, since: String(parsed.since ?? ''), ...(token ? { token } : {}) };
      return { owner, identity: token ?? fallback, ageMs };
    }
  } catch {
    // unreadable: judged by its age below
  }
  return { owner: undefined, identity: fallback, ageMs };
}

function isStale(state: LockState): boolean {
  const owner = state.owner;
  if (!owner) return state.ageMs > UNREADABLE_STALE_MS;
  // A lock from another machine (a shared folder) cannot be checked; respect it.
  if (owner.host !== os.hostname()) return false;
  // Our own pid: ours if we hold its token, else a dead predecessor's that got the same pid (a restarted container).
  if (owner.pid === process.pid) return !(owner.token && held.has(owner.token));
  return !isAlive(owner.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Guards and temporary files that processes killed mid-way left beside the lock. */
function removeLeftovers(file: string, token: string): void {
  const dir = path.dirname(file);
  const base = path.basename(file);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  const temporary = new RegExp(`\\.${hostHash()}-(\\d+)-[0-9a-f]{12}\\.tmp$`);
  for (const name of names) {
    if (!name.startsWith(`${base}.`)) continue;
    const full = path.join(dir, name);
    const pid = temporary.exec(name)?.[1];
    if (pid !== undefined && Number(pid) !== process.pid && !isAlive(Number(pid))) fs.rmSync(full, { force: true });
    else if (name.startsWith(`${base}.takeover-`) && name !== `${base}.takeover-${token}`) {
      const guard = readLock(full);
      if (guard && isStale(guard)) fs.rmSync(full, { force: true });
    }
  }
}
