import * as fs from 'node:fs';
import * as path from 'node:path';
import { gateBudgetSeconds, unfinishedList, type Unfinished } from '../app/gate/deadline';
import type { GateVerdict, StopRequest } from '../app/gate/hosts';
import type { AnyCriterion } from '../model';
import { methodCommand } from '../model/verification-method';
import { formatVerifySpec } from '../prd/verify-spec';
import { isLoaderVariable, loaderVariablesIn } from '../verify/secret-env';

/**
 * The gate's last word before its host gives up. The deadline (src/app/gate/deadline.ts) bounds
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

/** What the gate is doing, for the watchdog's answer: the request once read, the PRD being verified and its unfinished criteria. */
export interface WatchState {
  request?: StopRequest;
  /** A prompt-submit hook: recording the baseline, never answering a stop. */
  prompt?: boolean;
  workspace?: string;
  counter?: string;
  before: number;
  maxBlocks: number;
  verifying: string;
  pending: Map<string, AnyCriterion>;
  /** What the gate ignored (a state folder, loader variables): every answer says it. */
  notes: string[];
}

export function unfinishedOf(watch: WatchState): Unfinished[] {
  return [...watch.pending.values()].map((c) => ({ id: c.id, ...(c.verify ? { how: methodCommand(c.verify) ?? formatVerifySpec(c.verify, c.text) } : {}) }));
}

/** The watchdog's answer: a block, unless the agent was already kept working --max-blocks times in a row. */
export function watchdogVerdict(watch: WatchState, seconds: number): GateVerdict {
  const unfinished = unfinishedOf(watch);
  const what = unfinished.length > 0 ? `${unfinishedList(unfinished)} still running (${watch.verifying})` : watch.verifying ? `${watch.verifying} was still being read or verified` : "the host's payload was still being read";
  const summary = `Ideal State: verification did not finish within ${Math.round(seconds)} s: ${what}; the gate answers now, before its host stops waiting.`;
  if (watch.before >= watch.maxBlocks && watch.request) {
    return { kind: 'allow', note: `${summary}\nThe agent was kept working ${watch.before} times in a row (--max-blocks ${watch.maxBlocks}) and may stop now, unverified.` };
  }
  const reason = [
    summary,
    'Nothing shows the work is done. A check that does not end, or a file that is not a regular one (a FIFO or a device where a PRD, a settings file or a .gitignore was), keeps the gate waiting: put the files back as they were and make the checks end, then finish.',
  ].join('\n');
  return { kind: 'block', reason, summary };
}

/** A verdict with what the gate ignored added: to a block's reason, to a pass's note. */
export function withNotes(verdict: GateVerdict, notes: readonly string[]): GateVerdict {
  if (notes.length === 0) return verdict;
  if (verdict.kind === 'block') return { ...verdict, reason: [verdict.reason, ...notes].join('\n') };
  return { kind: 'allow', note: [...(verdict.note ? [verdict.note] : []), ...notes].join('\n') };
}

/**
 * Removes the loader variables (NODE_OPTIONS, npm_config_*, LD_PRELOAD, …) from the gate's own
 * environment, so nothing it starts gets them (every check's environment drops them as well,
 * src/verify/secret-env.ts), and says which were there: all of them on stderr; in the answer
 * only those that load code (a host started with `npx` passes npm_config_* to every hook, and
 * that is no one's doing). Node has already applied NODE_OPTIONS to the gate itself by then:
 * the note says so, for the person to look at what set it.
 */
export function dropLoaderVariables(env: NodeJS.ProcessEnv): { stderr: string[]; notes: string[] } {
  const names = loaderVariablesIn(env);
  if (names.length === 0) return { stderr: [], notes: [] };
  const preload = /(^|\s)(-r|--require|--import|--loader|--experimental-loader)(\s|=|$)/.test(env.NODE_OPTIONS ?? '');
  const loading = names.filter((n) => (n === 'NODE_OPTIONS' ? preload : CODE_LOADING.has(n)));
  for (const name of Object.keys(env)) if (isLoaderVariable(name)) delete env[name];
  if (env !== process.env) for (const name of Object.keys(process.env)) if (isLoaderVariable(name)) delete process.env[name];
  const list = (xs: readonly string[]) => (xs.length > 6 ? `${xs.slice(0, 6).join(', ')} and ${xs.length - 6} more` : xs.join(', '));
  const stderr = [`Ideal State: the checks run without ${list(names)} (set in the gate's environment).`];
  const notes =
    loading.length === 0
      ? []
      : [`Ideal State: ${list(loading)} ${loading.length === 1 ? 'was' : 'were'} set in the gate's environment (by the host, or an \`env\` in its settings) to load code into the programs it starts; the checks ran without ${loading.length === 1 ? 'it' : 'them'}.${preload ? ' Node loaded what NODE_OPTIONS names into the gate itself before the gate could remove it: look at what set it.' : ''}`];
  return { stderr, notes };
}

/** The variables whose only use is to load code into a program: worth the user's attention when they reach the gate. */
const CODE_LOADING = new Set(['LD_PRELOAD', 'LD_AUDIT', 'DYLD_INSERT_LIBRARIES', 'NODE_REPL_EXTERNAL_MODULE', 'BASH_ENV', 'PERL5OPT', 'RUBYOPT']);

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
