import * as fs from 'node:fs';
import * as path from 'node:path';
import { gateBudgetSeconds } from '../../app/gate/deadline';

/**
 * The gate's last word before its host gives up (what it says is the stop's:
 * src/app/gate/stop-watch.ts; here, when it says it and how the process ends). The deadline (src/app/gate/deadline.ts) bounds
 * the checks, but not a read that never returns: a FIFO put where a file was kept the gate
 * waiting past its own deadline, the host killed it at its timeout and let the agent stop with
 * nothing said. So a timer started before anything is read fires between the budget and the
 * host's deadline, prints the blocking answer in the host's format, whatever is still pending,
 * and ends the process. Once the gate has answered, the timer gives way to a short one that
 * keeps nothing alive (unref) and ends a process that something pending would hold open.
 */
export interface Watchdog {
  /** The answer is out: stop the timer, and end the process soon if nothing else does. */
  answered(): void;
  /** Seconds from the gate's start at which it fires. */
  readonly seconds: number;
}

/** When the watchdog fires: halfway between the budget's end and the host's deadline. */
export function watchdogSeconds(deadlineSeconds: number): number {
  const budget = gateBudgetSeconds(deadlineSeconds);
  return Math.max(budget, (budget + deadlineSeconds) / 2);
}

/** After the answer, how long the process may take to end by itself. */
const AFTER_ANSWER_MS = 2_000;

/** What the watchdog's answer left to finish before the process ends (the block counter's write), and the exit code. */
export interface Fired {
  code: number;
  after?: Promise<unknown>;
}

/**
 * `fire` prints the blocking answer; `exit` ends the process (absent: the caller owns no
 * process, as a test calling the gate in its own process: nothing is ended). `rearm` moves the
 * deadline once the host is known from its payload, counted from the start all the same.
 */
export function startWatchdog(deadlineSeconds: number, fire: (seconds: number) => Fired, exit: ((code?: number) => void) | undefined, release: () => readonly string[] = () => []): Watchdog & { rearm(deadlineSeconds: number): void } {
  const started = Date.now();
  let seconds = watchdogSeconds(deadlineSeconds);
  let done = false;
  const onTime = () => {
    if (done) return;
    done = true;
    const fired = fire(seconds);
    // Node ends a process only once its file-system threads are free: one waiting to open a FIFO never is.
    if (exit) releaseFifos(release());
    // The counter's write gets a moment, and a pipe to the host written asynchronously (macOS) its flush.
    const grace = new Promise((resolve) => setTimeout(resolve, 500));
    if (exit) void Promise.race([Promise.all([fired.after, new Promise((resolve) => setTimeout(resolve, 100))]), grace]).then(() => exit(fired.code));
  };
  let timer = setTimeout(onTime, seconds * 1000);
  return {
    get seconds() {
      return seconds;
    },
    rearm(next: number) {
      if (done) return;
      clearTimeout(timer);
      seconds = watchdogSeconds(next);
      timer = setTimeout(onTime, Math.max(0, started + seconds * 1000 - Date.now()));
    },
    answered() {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (exit) setTimeout(() => exit(), AFTER_ANSWER_MS).unref();
    },
  };
}

/** The most entries looked at for FIFOs to release: the watchdog has seconds, not minutes. */
const RELEASE_LIMIT = 20_000;

/**
 * Opens each FIFO under these folders for writing, without waiting, and closes it: a reader
 * blocked opening it (a file-system thread of this process) is let go with nothing to read, so
 * the process can end. Bounded; dependency and VCS folders are skipped; symlinks not followed.
 * Returns the FIFOs released.
 */
export function releaseFifos(folders: readonly string[]): string[] {
  const released: string[] = [];
  const writeNow = fs.constants.O_WRONLY | (fs.constants.O_NONBLOCK ?? 0);
  let seen = 0;
  const queue = [...folders];
  while (queue.length > 0 && seen < RELEASE_LIMIT) {
    const dir = queue.shift()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > RELEASE_LIMIT) break;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== '.git') queue.push(full);
      } else if (entry.isFIFO()) {
        try {
          fs.closeSync(fs.openSync(full, writeNow));
          released.push(full);
        } catch {
          // No reader waiting (ENXIO): nothing to release.
        }
      }
    }
  }
  return released;
}
