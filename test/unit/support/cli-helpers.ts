import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from './repo-root';

/** The built command line (`node esbuild.mjs` puts it in dist/). */
export const BUILT_CLI = path.resolve(REPO_ROOT, 'dist/cli.js');

export interface CliRun {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

let userFolders: { readonly IDEAL_STATE_STATE_DIR: string; readonly XDG_DATA_HOME: string } | undefined;

/**
 * The state folder (the gate's records, the criteria lock, pending reports) and the data folder
 * (stores, trust records) every command line of this test process uses: folders of its own,
 * never the user's, whose records (a command denied "always") would change what a test sees.
 * Shared by the process's runs, as one user's runs share theirs; removed when it exits.
 */
export function testUserFolders(): { readonly IDEAL_STATE_STATE_DIR: string; readonly XDG_DATA_HOME: string } {
  if (!userFolders) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-cli-user-'));
    userFolders = { IDEAL_STATE_STATE_DIR: path.join(root, 'state'), XDG_DATA_HOME: path.join(root, 'data') };
    process.once('exit', () => fs.rmSync(root, { recursive: true, force: true }));
  }
  return userFolders;
}

/**
 * A command line in a child process, so this process (with its fake servers) keeps running:
 * no terminal (stdin ignored: whatever must be asked is denied), no provider keys or base
 * URLs from this environment unless `env` gives them, and the test's own state and data
 * folders (testUserFolders) unless `env` names others. `interrupt` sends SIGINT once stderr matches it.
 */
export function runCli(args: readonly string[], options: { env?: Record<string, string>; cli?: string; interrupt?: RegExp; input?: string } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC)_/.test(k)));
    const proc = spawn(process.execPath, [options.cli ?? BUILT_CLI, ...args], { env: { ...clean, ...testUserFolders(), ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    // Standard input as a hook host gives it (none: closed at once, as /dev/null would be).
    proc.stdin.end(options.input ?? '');
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
