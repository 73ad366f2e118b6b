// What every file of the hosts tier sets up the same way: which hosts this run drives
// (IDEAL_STATE_HOSTS), the host's program or the test "not run" with why, temporary folders
// removed after the tests (IDEAL_STATE_HOSTS_KEEP=1 keeps them to look at), a child process
// with its output collected, and the sample workspace with only its verify demo PRD.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../harness/paths.mjs';
import { ensureHost } from './install.mjs';

/** The hosts named by IDEAL_STATE_HOSTS (comma-separated), or undefined: every host. */
export const onlyHosts = process.env.IDEAL_STATE_HOSTS?.split(',');

/** Whether this run drives the host `name`. */
export const wantHost = (name) => !onlyHosts || onlyHosts.includes(name);

/**
 * The host's program, or the test skipped as "not run" with why. npm test's last line counts
 * every test not run and the run exits 1 (under CI the tier fails): a tier that could install
 * none of its programs is never a green run.
 */
export function needHost(context, name) {
  const installed = ensureHost(name);
  if (!installed.ok) {
    console.log(`      [hosts] ${name}: not run: ${installed.why}`);
    context.skip();
  }
  return installed;
}

const made = [];

/** A temporary folder, removed by `removeMade` after the test. */
export function tempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder `tempDir` made so far, unless IDEAL_STATE_HOSTS_KEEP asks to keep them. */
export function removeMade() {
  if (process.env.IDEAL_STATE_HOSTS_KEEP) return;
  // Retries: a host's program that was just killed may still hold a file in its folder for a moment.
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** Runs a program to its end (killed after 150 s), with its exit code or signal and its whole output. */
export function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

export const SAMPLE = path.join(repoRoot, 'test', 'fixtures', 'sample-workspace');
export const DEMO_PRD = '.ideal-state/prds/PRD-20261122-verify-demo.md';

/** The sample workspace with only its verify demo PRD, in a git repository: ISC-DEMO-004 fails (no CHANGELOG.md), its check a task of .vscode/tasks.json. */
export function demoWorkspace(prefix) {
  const dir = tempDir(prefix);
  fs.cpSync(SAMPLE, dir, { recursive: true });
  for (const file of fs.readdirSync(path.join(dir, '.ideal-state', 'prds'))) {
    if (file !== path.basename(DEMO_PRD)) fs.rmSync(path.join(dir, '.ideal-state', 'prds', file));
  }
  spawnSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}
