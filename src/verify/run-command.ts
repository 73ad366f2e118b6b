import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { monotonicMs } from './clock';
import { OutputTail, withoutKnownNoise } from './output-tail';
import { scrubEnvironment } from './secret-env';

/**
 * Runs one command for a verifier (and for the agent's run-command tool): in a folder the
 * caller has already confined to the workspace, with a timeout, the output kept to a
 * bounded tail, no secrets in its environment, and the whole process tree killed on
 * timeout or cancel. It never throws for the command's sake: every way it can end is a
 * value.
 */
export interface RunCommandOptions {
  /** A shell command line, or with `args` a program run without a shell. */
  command: string;
  args?: readonly string[];
  /** Absolute folder, already inside the workspace (see confinePath). */
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes of combined stdout+stderr kept, from the end. Default 64 KiB. */
  maxOutputBytes?: number;
  /** Defaults to this process's environment; secrets are removed either way. */
  env?: NodeJS.ProcessEnv;
  /** Extra variables, set after scrubbing (never put secrets here). */
  extraEnv?: Record<string, string>;
  /** How long a tree gets between SIGTERM and SIGKILL. Default 2 s. */
  killGraceMs?: number;
  /** Told the process id once it started (on POSIX also its process group's id). */
  onSpawn?: (pid: number) => void;
  /** The workspace's folders (a snapshot and the live one): PATH entries inside them are left out (pathOutside). */
  pathOutside?: readonly string[];
}

export type RunCommandResult = { durationMs: number; output: string; outputBytes: number; droppedBytes: number } & (
  | { kind: 'exited'; exitCode: number }
  | { kind: 'signalled'; signal: string }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'cancelled' }
  | { kind: 'spawn-failed'; reason: string }
);

export const DEFAULT_OUTPUT_BYTES = 64 * 1024;

export function runCommand(options: RunCommandOptions): Promise<RunCommandResult> {
  const started = monotonicMs();
  const tail = new OutputTail(options.maxOutputBytes ?? DEFAULT_OUTPUT_BYTES);
  const grace = options.killGraceMs ?? 2000;
  const common = () => ({ durationMs: Math.round(monotonicMs() - started), output: withoutKnownNoise(tail.text()), outputBytes: tail.total, droppedBytes: tail.dropped });
  if (options.signal?.aborted) return Promise.resolve({ kind: 'cancelled', ...common() });

  return new Promise((resolve) => {
    const windows = process.platform === 'win32';
    let child;
    try {
      child = spawn(options.args ? options.command : windows ? options.command : '/bin/sh', options.args ? [...options.args] : windows ? [] : ['-c', options.command], {
        cwd: options.cwd,
        env: { ...withPathOutside(scrubEnvironment(options.env ?? process.env), options.pathOutside), ...options.extraEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group, so a kill reaches every process the command started.
        detached: !windows,
        shell: windows && !options.args,
        windowsHide: true,
      });
    } catch (error) {
      resolve({ kind: 'spawn-failed', reason: (error as Error).message, ...common() });
      return;
    }
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    let ending: 'timeout' | 'cancelled' | undefined;
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let killTimer: NodeJS.Timeout | undefined;

    const killTree = (sig: NodeJS.Signals) => {
      const pid = child.pid;
      if (pid === undefined) return;
      try {
        if (windows) spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
        else process.kill(-pid, sig);
      } catch {
        // Already gone.
      }
    };
    const stop = (why: 'timeout' | 'cancelled') => {
      if (ending || settled) return;
      ending = why;
      killTree('SIGTERM');
      killTimer = setTimeout(() => {
        killTree('SIGKILL');
        // A process that left the group may still hold the pipes: do not wait for it.
        setTimeout(settle, 1000).unref();
      }, grace);
    };
    // A delay past setTimeout's range fires at once (TimeoutOverflowWarning); past it, the longest one it holds.
    const timer = setTimeout(() => stop('timeout'), Math.max(1, Math.min(options.timeoutMs, 2 ** 31 - 1)));
    const onAbort = () => stop('cancelled');
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (result: RunCommandResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // Whatever the command left behind in its group goes with it.
      killTree('SIGKILL');
      if (killTimer) clearTimeout(killTimer);
      resolve(result);
    };
    const settle = () => {
      if (ending === 'timeout') return finish({ kind: 'timeout', timeoutMs: options.timeoutMs, ...common() });
      if (ending === 'cancelled') return finish({ kind: 'cancelled', ...common() });
      if (!exit) return;
      if (exit.code !== null) return finish({ kind: 'exited', exitCode: exit.code, ...common() });
      finish({ kind: 'signalled', signal: exit.signal ?? 'unknown', ...common() });
    };

    child.stdout!.on('data', (c: Buffer) => tail.push(c));
    child.stderr!.on('data', (c: Buffer) => tail.push(c));
    child.on('error', (error) => finish({ kind: 'spawn-failed', reason: error.message, ...common() }));
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      if (ending) return; // 'close' or the kill timer decides
      // A background process may keep the pipes open; do not wait for it past a moment.
      setTimeout(settle, 200).unref();
    });
    child.on('close', settle);
  });
}

/**
 * The check's PATH without the folders inside the workspace, nor relative entries (which resolve
 * against the check's own folder). A program a check's first word finds through such an entry
 * is one the agent can write, and no lock holds it: put there by an agent's `env` setting, a
 * `node` that exits 0 made a locked `node -e …` criterion pass. A check that means a workspace
 * program names it by its path (`./bin/tool`), and the lock then holds that file; a package
 * runner adds its own `node_modules/.bin`, whose shims the lock holds too.
 */
export function withPathOutside(env: Record<string, string>, roots: readonly string[] | undefined): Record<string, string> {
  if (!roots || roots.length === 0) return env;
  const inside = (dir: string) => roots.some((root) => {
    const rel = path.relative(path.resolve(root), path.resolve(dir));
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
  const out = { ...env };
  for (const name of Object.keys(out).filter((n) => n.toUpperCase() === 'PATH')) {
    out[name] = out[name]!.split(path.delimiter).filter((dir) => dir !== '' && path.isAbsolute(dir) && !inside(dir)).join(path.delimiter);
  }
  return out;
}
