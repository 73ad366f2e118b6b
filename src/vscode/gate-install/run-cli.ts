import { spawn } from 'node:child_process';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Output past this is dropped: a preview is a few diffs, and a runaway must not fill memory. */
const OUTPUT_LIMIT = 1 << 20;

/**
 * Runs the bundled command line once: stdin closed (so it has no terminal to ask and writes
 * nothing without --yes), ended after `timeoutMs` (its own launcher check is bounded at 30 s).
 */
export function runCli(node: string, args: string[], options: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv }): Promise<CliRun> {
  return new Promise((resolve) => {
    const run: CliRun = { code: null, stdout: '', stderr: '' };
    let child;
    try {
      child = spawn(node, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      resolve({ ...run, code: 127, stderr: `cannot start ${node}: ${error instanceof Error ? error.message : String(error)}` });
      return;
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.stdout.on('data', (d: Buffer) => (run.stdout = (run.stdout + d.toString()).slice(0, OUTPUT_LIMIT)));
    child.stderr.on('data', (d: Buffer) => (run.stderr = (run.stderr + d.toString()).slice(0, OUTPUT_LIMIT)));
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ ...run, code: 127, stderr: `cannot start ${node}: ${error.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ ...run, code: code ?? (run.stderr ? 1 : null), stderr: code === null ? `${run.stderr}\nthe command line gave no answer in ${options.timeoutMs / 1000} s and was ended` : run.stderr });
    });
  });
}
