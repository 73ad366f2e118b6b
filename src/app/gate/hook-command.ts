import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * A hook's command line, run once the way a host runs it (through a shell, its payload on
 * stdin), by `gate install` before it writes the command and by `gate doctor`'s dry stop. What
 * can go wrong on a user's machine is said as one line with what to do, never a crash: a
 * program that is not there, one that cannot start, one that ends before it reads the payload
 * (a broken pipe: Node raises EPIPE on the write, an unhandled 'error' event without a
 * listener), and one that never answers.
 */
export interface HookRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The program ended without reading all of its stdin: the host's payload never reached it. */
  brokenPipe: boolean;
  /** No answer within the bound; the program (and what it started) was killed. */
  timedOut: boolean;
  timeoutMs: number;
  /** The shell itself could not be started. */
  spawnError?: string;
}

export interface HookRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/** Output past this is dropped: a hook's answer is a line of JSON, and a runaway program must not fill memory. */
const OUTPUT_LIMIT = 1 << 20;

export function runHookCommand(command: string, stdin: string, options: HookRunOptions): Promise<HookRun> {
  return new Promise((resolve) => {
    const run: HookRun = { code: null, signal: null, stdout: '', stderr: '', brokenPipe: false, timedOut: false, timeoutMs: options.timeoutMs };
    let child;
    try {
      // Its own process group, so a timeout ends the shell and what it started, as a host ends a hook.
      child = spawn(command, { shell: true, cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
    } catch (error) {
      resolve({ ...run, code: 127, spawnError: error instanceof Error ? error.message : String(error) });
      return;
    }
    const timer = setTimeout(() => {
      run.timedOut = true;
      try {
        if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    }, options.timeoutMs);
    child.stdout.on('data', (d: Buffer) => (run.stdout = (run.stdout + d.toString()).slice(0, OUTPUT_LIMIT)));
    child.stderr.on('data', (d: Buffer) => (run.stderr = (run.stderr + d.toString()).slice(0, OUTPUT_LIMIT)));
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ ...run, code: 127, spawnError: error.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ ...run, code, signal });
    });
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') run.brokenPipe = true;
    });
    child.stdin.end(stdin);
  });
}

/**
 * The one line that says why a hook run went wrong and what to do, or undefined when it ran
 * (whatever it answered). `command` is the hook's command line as the host's settings hold it.
 */
export function hookProblem(run: HookRun, command: string): string | undefined {
  const program = firstWord(command);
  const said = firstLine(run.stderr);
  const reinstall = 'install the command line (npm install -g ideal-state) and run `ideal-state gate install <host>` again: it writes the absolute paths of the Node and command line that ran it, checked to run';
  if (run.spawnError !== undefined) return `the hook could not be started (${run.spawnError}): the host cannot run it either; ${reinstall}`;
  if (run.timedOut) return `the hook gave no answer in ${Math.round(run.timeoutMs / 1000)} s: the host stops waiting and lets its agent stop; run \`${command}\` by hand to see where it waits`;
  if (run.code === 127) return `the hook's program \`${program}\` is not found (exit 127${said ? `: ${said}` : ''}): the host lets every stop through; ${reinstall}`;
  if (run.code === 126) return `the hook's program \`${program}\` cannot be started (exit 126${said ? `: ${said}` : ''}: not executable, or not a program): ${reinstall}`;
  const missing = lineMatching(run.stderr, /Cannot find module|ERR_MODULE_NOT_FOUND|ideal-state: cannot start/);
  if (missing) return `the hook's command line cannot start (${missing}): the installed files are missing or incomplete; ${reinstall}`;
  const tooOld = lineMatching(run.stderr, /SyntaxError|ERR_UNKNOWN_BUILTIN_MODULE|ERR_REQUIRE_ESM/);
  if (tooOld) return `the hook's Node cannot run the command line (${tooOld}): it needs Node 20 or later; ${reinstall} under that Node`;
  if (run.signal !== null) return `the hook was ended by ${run.signal}${said ? ` (${said})` : ''}: the host reads that as "let the agent stop"; run \`${command}\` by hand to see why`;
  if (run.brokenPipe && run.code !== 0) return `the hook's program ended (exit ${run.code}) before it read the stop payload (a broken pipe)${said ? `: ${said}` : ''}; it is not the gate: ${reinstall}`;
  return undefined;
}

/**
 * Whether a launcher (what `gate install` writes before ` gate --host …`) starts this command
 * line here: `LAUNCHER --version` through a shell, as the host will run the hook. The version it
 * prints, or the line that says why not.
 */
export async function checkLauncherRuns(launcher: string, options: HookRunOptions): Promise<{ ok: true; version: string } | { ok: false; line: string }> {
  const command = `${launcher} --version`;
  const run = await runHookCommand(command, '', options);
  const problem = hookProblem(run, command);
  if (problem) return { ok: false, line: problem };
  const version = run.stdout.trim().split('\n').at(-1) ?? '';
  if (run.code !== 0 || !/^\d+\.\d+\.\d+\S*$/.test(version)) return { ok: false, line: `\`${command}\` did not print a version (exit ${run.code}${firstLine(run.stderr) ? `: ${firstLine(run.stderr)}` : ''}): it does not start Ideal State's command line` };
  return { ok: true, version };
}

/**
 * The MCP server's command: `ideal-state` when that name, looked up on PATH here, is the
 * command line file the hook runs (so an upgrade of the global install moves both), else the
 * hook's own launcher: a name that resolves to nothing would leave the host without its tools.
 */
export function mcpLauncherFor(hookLauncher: string, cliFile: string | undefined, pathVar = process.env.PATH ?? ''): { launcher: string; why: string } {
  const onPath = resolveOnPath('ideal-state', pathVar);
  const same = onPath !== undefined && cliFile !== undefined && realpath(onPath) === realpath(cliFile);
  if (same) return { launcher: 'ideal-state', why: `\`ideal-state\` on PATH is ${onPath}, this command line` };
  return { launcher: hookLauncher, why: onPath === undefined ? '`ideal-state` is not on PATH here' : `\`ideal-state\` on PATH is ${onPath}, not this command line` };
}

function resolveOnPath(program: string, pathVar: string): string | undefined {
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const file = path.join(dir, program);
    try {
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

function realpath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

function firstWord(command: string): string {
  return (command.match(/^\s*("[^"]*"|'[^']*'|\S+)/)?.[1] ?? command).replace(/^["']|["']$/g, '');
}

/** Node prints a stack's location first; the line that names the error is the one to show. */
function lineMatching(text: string, pattern: RegExp): string | undefined {
  return text.split('\n').find((l) => pattern.test(l))?.trim().slice(0, 300);
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim() ?? '';
}
