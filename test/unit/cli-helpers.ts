import { spawn } from 'node:child_process';
import * as path from 'node:path';

/** The built command line (`node esbuild.mjs` puts it in dist/). */
export const BUILT_CLI = path.resolve(__dirname, '../../../dist/cli.js');

export interface CliRun {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/**
 * A command line in a child process, so this process (with its fake servers) keeps running:
 * no terminal (stdin ignored: whatever must be asked is denied), and no provider keys or base
 * URLs from this environment unless `env` gives them. `interrupt` sends SIGINT once stderr matches it.
 */
export function runCli(args: readonly string[], options: { env?: Record<string, string>; cli?: string; interrupt?: RegExp } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC)_/.test(k)));
    const proc = spawn(process.execPath, [options.cli ?? BUILT_CLI, ...args], { env: { ...clean, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let sent = false;
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (options.interrupt && !sent && options.interrupt.test(err)) {
        sent = true;
        proc.kill('SIGINT');
      }
    });
    proc.on('close', (code) => resolve({ code, out, err }));
  });
}
