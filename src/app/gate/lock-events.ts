import * as crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { readRegularFile } from '../../verify/safe-read';

/**
 * The lock history: one JSON line per write of the lock, the session baseline or the block
 * counter, appended beside them by the only code that writes them (who, when, from which
 * terminal, and the file's SHA-256 after the write). A lock removed by hand, a lock rewritten
 * with another `verify` or `by: your-boss`, a counter set to the limit: each leaves the file
 * unlike the last line recorded for it, and the gate, `criteria status` and `gate doctor` say
 * so and refuse it. A process running as the user that rewrites the history too is not caught
 * here (the state folder is the user's): CI with `--criteria-from` is that boundary.
 */
export const LOCK_EVENTS_NAME = 'lock-events.jsonl';
/** Past this size the history starts again from the last line of each file (the older lines kept once, in lock-events.1.jsonl). */
const ROTATE_BYTES = 1024 * 1024;
/** Two writers at once (two prompts in two sessions) may append out of order: a write this close to the last one also matches. */
const SAME_TIME_MS = 5_000;

export const LockAction = z.enum(['lock', 'approve', 'baseline', 'counter']);
export type LockAction = z.infer<typeof LockAction>;

export const LockEvent = z.object({
  at: z.iso.datetime(),
  action: LockAction,
  /** The file written, by its name in the state folder (criteria-lock.json, session-baseline.json, gate-state.json). */
  file: z.string().min(1),
  /** Its SHA-256 after the write; null: it was removed. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
  by: z.string(),
  uid: z.number().int().nullable(),
  /** The controlling terminal of the process that wrote it (/dev/pts/3), null when it had none (a hook, the editor). */
  tty: z.string().nullable(),
  pid: z.number().int(),
  how: z.string().optional(),
  prds: z.array(z.string()).optional(),
  /** Carried over when the history started again. */
  carried: z.boolean().optional(),
});
export type LockEvent = z.infer<typeof LockEvent>;

export function sha256Of(bytes: string | Buffer): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/** The controlling terminal, from the kernel's record of this process (Linux), else the first standard stream that is one. */
export function controllingTerminal(): string | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ttyNr = Number(fields[4]);
    if (Number.isInteger(ttyNr) && ttyNr > 0) {
      const major = (ttyNr >> 8) & 0xfff;
      const minor = (ttyNr & 0xff) | ((ttyNr >> 12) & 0xfff00);
      if (major >= 136 && major <= 143) return `/dev/pts/${(major - 136) * 256 + minor}`;
      if (major === 4) return `/dev/tty${minor}`;
      return `tty ${major}:${minor}`;
    }
    if (ttyNr === 0) return null;
  } catch {
    // Not Linux: the streams say what they can.
  }
  for (const stream of [process.stdin, process.stdout, process.stderr]) if ((stream as { isTTY?: boolean }).isTTY) return 'a terminal';
  return null;
}

function user(): { by: string; uid: number | null } {
  let by = 'unknown';
  try {
    by = os.userInfo().username || by;
  } catch {
    // No user record (a container without one): the uid still says who.
  }
  return { by, uid: typeof process.getuid === 'function' ? process.getuid() : null };
}

/** Appends one line for a write just made; `text` is what was written (null: the file was removed). */
export async function recordLockEvent(folder: string, event: { action: LockAction; file: string; text: string | null; how?: string; prds?: readonly string[]; now?: Date }): Promise<void> {
  const line: LockEvent = {
    at: (event.now ?? new Date()).toISOString(),
    action: event.action,
    file: event.file,
    sha256: event.text === null ? null : sha256Of(event.text),
    ...user(),
    tty: controllingTerminal(),
    pid: process.pid,
    ...(event.how ? { how: event.how } : {}),
    ...(event.prds ? { prds: [...event.prds] } : {}),
  };
  const log = path.join(folder, LOCK_EVENTS_NAME);
  await fs.mkdir(folder, { recursive: true });
  const size = await fs.lstat(log).then((s) => (s.isFile() ? s.size : -1), () => 0);
  if (size > ROTATE_BYTES) await rotate(folder);
  await fs.appendFile(log, `${JSON.stringify(line)}\n`, { encoding: 'utf8', mode: 0o600 });
}

/** The history grew past its bound: keep it once as lock-events.1.jsonl and start again from each file's last line. */
async function rotate(folder: string): Promise<void> {
  const log = path.join(folder, LOCK_EVENTS_NAME);
  const read = await readHistory(folder);
  if (!read.ok) return;
  const last = new Map<string, LockEvent>();
  for (const e of read.events) last.set(e.file, e);
  await fs.rename(log, path.join(folder, 'lock-events.1.jsonl'));
  await fs.writeFile(log, [...last.values()].map((e) => `${JSON.stringify({ ...e, carried: true })}\n`).join(''), { encoding: 'utf8', mode: 0o600 });
}

type History = { ok: true; exists: boolean; events: LockEvent[] } | { ok: false; message: string };

export async function readHistory(folder: string): Promise<History> {
  const log = path.join(folder, LOCK_EVENTS_NAME);
  const read = await readRegularFile(log, { maxBytes: ROTATE_BYTES * 4 });
  if (!read.ok) return read.reason === 'absent' ? { ok: true, exists: false, events: [] } : { ok: false, message: `the lock history ${read.message}` };
  const events: LockEvent[] = [];
  for (const line of read.bytes.toString('utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed = LockEvent.safeParse(JSON.parse(line));
      // A line that is not an event is not one of ours; the lines around it still say what was written.
      if (parsed.success) events.push(parsed.data);
    } catch {
      // As above.
    }
  }
  return { ok: true, exists: true, events };
}

const ACTION_WORDS: Record<LockAction, string> = { lock: 'locked', approve: 'approved', baseline: 'baselined at a prompt', counter: 'written by the gate' };

const HOW_WORDS: Record<string, string> = { terminal: 'on a terminal', editor: 'in the editor', prompt: "at the person's prompt" };

/** One recorded write as a person reads it: "locked on a terminal by ana (uid 1000) from /dev/pts/3 at 2026-11-30T10:00:00.000Z (sha256 3f2a…)". */
export function describeEvent(e: LockEvent): string {
  const by = `${e.by}${e.uid !== null ? ` (uid ${e.uid})` : ''}`;
  const how = (e.how ?? '').split(', ').filter(Boolean).map((h) => HOW_WORDS[h] ?? h).join(' and ');
  return `${ACTION_WORDS[e.action]}${how ? ` ${how}` : ''} by ${by}${e.tty ? ` from ${e.tty}` : ''} at ${e.at}${e.sha256 ? ` (sha256 ${e.sha256.slice(0, 12)}…)` : ''}`;
}

export type HistoryCheck = { ok: true; last?: LockEvent } | { ok: false; message: string };

/**
 * Whether a state file is as its last recorded write left it. `bytes` undefined: the file is
 * not there. A file with no recorded write is refused too (a lock planted by hand holds the
 * agent to what the agent chose); a file never written and not there is fine.
 */
export async function checkHistory(folder: string, name: string, bytes: Buffer | undefined, what: string): Promise<HistoryCheck> {
  const history = await readHistory(folder);
  if (!history.ok) return { ok: false, message: `${what} is not trusted: ${history.message}` };
  const mine = history.events.filter((e) => e.file === name);
  const last = mine.at(-1);
  const log = path.join(folder, LOCK_EVENTS_NAME);
  if (bytes === undefined) {
    if (!last || last.sha256 === null) return { ok: true, ...(last ? { last } : {}) };
    return { ok: false, message: `${what} was removed outside Ideal State: the lock history (${log}) last records it ${describeEvent(last)}` };
  }
  if (!last) return { ok: false, message: `${what} has no record in the lock history (${log}${history.exists ? '' : ', which is missing'}): it was not written by Ideal State` };
  const digest = sha256Of(bytes);
  const lastMs = Date.parse(last.at);
  const matches = mine.some((e) => e.sha256 === digest && Date.parse(e.at) >= lastMs - SAME_TIME_MS);
  if (matches) return { ok: true, last };
  return { ok: false, message: `${what} was rewritten outside Ideal State: its SHA-256 is ${digest.slice(0, 12)}…, and the lock history (${log}) last records it ${describeEvent(last)}` };
}

/**
 * One line on the lock's history for `criteria status` and `gate doctor`: the last recorded
 * write of the lock (and of the baseline where nothing is locked), and whether the file on disk
 * is as that write left it.
 */
export async function lockHistoryLine(folder: string, files: { lock: string; baseline: string }): Promise<string> {
  const history = await readHistory(folder);
  if (!history.ok) return `Lock history: ${history.message}.`;
  const parts: string[] = [];
  for (const [name, what] of [[files.lock, 'the criteria lock'], [files.baseline, 'the session baseline']] as const) {
    const last = history.events.filter((e) => e.file === name).at(-1);
    const file = path.join(folder, name);
    const read = await readRegularFile(file, { maxBytes: 64 * 1024 * 1024 });
    const bytes = read.ok ? read.bytes : undefined;
    if (!last && bytes === undefined) continue;
    const check = await checkHistory(folder, name, bytes, what);
    parts.push(check.ok ? `${what} was last ${last ? describeEvent(last) : 'never written'}; the file ${bytes === undefined ? 'is not there, as recorded' : 'is as recorded'}` : check.message);
  }
  if (parts.length === 0) return `Lock history: nothing locked or baselined here yet (${path.join(folder, LOCK_EVENTS_NAME)}).`;
  return `Lock history: ${parts.join('; ')}.`;
}
