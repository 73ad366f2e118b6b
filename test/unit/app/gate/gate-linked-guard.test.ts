import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lockCriteria } from '../../../../src/app/gate';
import { guardLinked, packageFolderOf } from '../../../../src/app/gate/linked-guard';
import { mountOf, snapshotParent } from '../../../../src/app/gate/snapshot-place';
import { claudeStop, decision, runGate, stateDir } from '../../support/gate-lock-helpers';

/**
 * The snapshot links node_modules to the live folder, so what a check runs from it is read live.
 * An agent's watcher that rewrites a dependency only while the gate verifies, and puts it back
 * after, must not change the verdict unseen: the change is "the workspace changed while the gate
 * verified it", a block. And where the snapshot goes (a memory file system only where checks can
 * run from it).
 */

const PRD = '.ideal-state/prds/PRD-20261129-checker.md';

function write(dir: string, relative: string, text: string, mode?: number): void {
  const file = path.join(dir, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, mode === undefined ? undefined : { mode });
}

/** A project whose packaged checker fails honestly (its rule says the work is not done); its shim is a link into its package, as npm makes it. */
function checkerProject(command: string): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-linked-'));
  write(ws, 'package.json', JSON.stringify({ name: 'p', version: '1.0.0' }));
  write(ws, '.gitignore', 'node_modules/\n');
  write(ws, 'node_modules/checker/package.json', JSON.stringify({ name: 'checker', version: '1.0.0', bin: { checker: 'cli.js' } }));
  write(ws, 'node_modules/checker/cli.js', "#!/usr/bin/env node\nprocess.exit(require('./rule.js').done() ? 0 : 1);\n", 0o755);
  write(ws, 'node_modules/checker/rule.js', 'exports.done = () => false;\n');
  fs.mkdirSync(path.join(ws, 'node_modules', '.bin'));
  fs.symlinkSync('../checker/cli.js', path.join(ws, 'node_modules', '.bin', 'checker'));
  write(ws, '.ideal-state/verify-commands.yaml', `commands:\n  - ${command}\n`);
  write(ws, PRD, ['---', 'prd: true', 'id: PRD-20261129-checker', 'status: IN_PROGRESS', '---', '', '# Checker', '', '## Ideal State Criteria', '', `- [ ] ISC-1: The packaged checker passes on the project | Verify: CLI: ${command}`, ''].join('\n'));
  return ws;
}

/** Whether a gate for this workspace is running (Linux /proc), as an agent's watcher would look. */
const GATE_LOOK = `
const fs = require('fs');
function gateRunning() {
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\\d+$/.test(pid) || Number(pid) === process.pid) continue;
    let cmd = '';
    try { cmd = fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' '); } catch { continue; }
    if (/cli\\.js gate/.test(cmd) && cmd.includes(process.cwd())) return true;
  }
  return false;
}`;

const started: ChildProcess[] = [];
/** A detached watcher that gives `file` the text `during` only while a gate runs for the workspace, and its old text back after. */
function watcher(ws: string, file: string, during: string): void {
  const code = `${GATE_LOOK}
const file = ${JSON.stringify(file)};
const original = fs.readFileSync(file, 'utf8');
let on = false;
setInterval(() => {
  const running = gateRunning();
  if (running && !on) { fs.writeFileSync(file, ${JSON.stringify(during)}); on = true; }
  if (!running && on) { fs.writeFileSync(file, original); on = false; }
}, 1);
fs.writeFileSync('.watching', '');`;
  const child = spawn(process.execPath, ['-e', code], { cwd: ws, detached: true, stdio: 'ignore' });
  child.unref();
  started.push(child);
}

afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already ended.
    }
  }
});

async function watching(ws: string): Promise<void> {
  for (let i = 0; i < 200 && !fs.existsSync(path.join(ws, '.watching')); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(fs.existsSync(path.join(ws, '.watching')), 'the watcher did not start');
  fs.unlinkSync(path.join(ws, '.watching'));
}

const linux = process.platform === 'linux';

describe('what a check runs from a linked folder is guarded while the gate verifies', function () {
  this.timeout(120_000);

  (linux ? it : it.skip)("a watcher rewrites the file node_modules/.bin/checker runs only while the gate runs: blocked as changed meanwhile, never let through", async () => {
    const ws = checkerProject('node_modules/.bin/checker');
    const state = stateDir();
    watcher(ws, 'node_modules/checker/cli.js', '#!/usr/bin/env node\nprocess.exit(0);\n');
    await watching(ws);
    const run = await runGate(['--workspace', ws, '--yes', '--no-store', '--no-log', '--deadline', '60'], claudeStop(ws), { state });
    const d = decision(run);
    assert.equal(d.blocked, true, `the gate let the stop through: ${d.text}\n${run.err}`);
    assert.match(d.text, /changed while the gate verified it: .*node_modules\/checker\/cli\.js/, d.text);
  });

  (linux ? it : it.skip)('a watcher rewrites a file of the package a locked `npx checker` runs, only while the gate runs: blocked as changed meanwhile', async () => {
    const ws = checkerProject('npx checker');
    const state = stateDir();
    const locked = await lockCriteria(ws, { files: [PRD], by: 'ana', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    assert.deepEqual(locked.refused, []);
    watcher(ws, 'node_modules/checker/rule.js', 'exports.done = () => true;\n');
    await watching(ws);
    const run = await runGate(['--host', 'claude-code', '--workspace', ws, '--no-store', '--no-log', '--deadline', '60'], claudeStop(ws), { state });
    const d = decision(run);
    assert.equal(d.blocked, true, `the gate let the stop through: ${d.text}\n${run.err}`);
    assert.match(d.text, /changed while the gate verified it: .*node_modules\/checker\/rule\.js/, d.text);
  });

  (linux ? it : it.skip)('the same project fixed honestly (the rule met, nothing running meanwhile): let through', async () => {
    const ws = checkerProject('npx checker');
    const state = stateDir();
    await lockCriteria(ws, { files: [PRD], by: 'ana', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    // The honest fix is the project's own: here the dependency's rule is what the work satisfies.
    write(ws, 'node_modules/checker/rule.js', 'exports.done = () => true;\n');
    await new Promise((r) => setTimeout(r, 50));
    const d = decision(await runGate(['--host', 'claude-code', '--workspace', ws, '--no-store', '--no-log', '--deadline', '60'], claudeStop(ws), { state }));
    assert.equal(d.blocked, false, d.text);
  });

  it('guards each .bin entry and what it resolves to, and the package of an executed shim; nothing else in node_modules', () => {
    const ws = checkerProject('npx checker');
    write(ws, 'node_modules/other/index.js', 'module.exports = 1;\n');
    const live = fs.realpathSync(ws);
    const keys = [...guardLinked(live, ['node_modules'], ['node_modules/.bin/checker', 'src/not-linked.js']).entries.keys()].sort();
    assert.deepEqual(keys, [
      'node_modules/.bin (linked)',
      'node_modules/.bin/checker (linked)',
      'node_modules/checker/cli.js (package)',
      'node_modules/checker/cli.js (what node_modules/.bin/checker runs)',
      'node_modules/checker/package.json (package)',
      'node_modules/checker/rule.js (package)',
    ]);
    const before = guardLinked(live, ['node_modules'], []);
    write(ws, 'node_modules/checker/cli.js', 'process.exit(0);\n');
    const after = guardLinked(live, ['node_modules'], []);
    assert.notEqual(after.entries.get('node_modules/checker/cli.js (what node_modules/.bin/checker runs)'), before.entries.get('node_modules/checker/cli.js (what node_modules/.bin/checker runs)'));
    assert.equal(packageFolderOf(path.join('/w', 'node_modules', '@scope', 'pkg', 'lib', 'a.js')), path.join('/w', 'node_modules', '@scope', 'pkg'));
    assert.equal(packageFolderOf(path.join('/w', 'node_modules', '.bin')), undefined);
  });
});

describe('where a snapshot goes', () => {
  const mounts = (options: string) => `/dev/vda / ext4 rw,relatime 0 0\ntmpfs /dev/shm tmpfs ${options} 0 0\n`;

  it('the mount a folder is on: the longest mount point holding it', () => {
    assert.deepEqual(mountOf('/dev/shm/x', mounts('rw,nosuid')), { point: '/dev/shm', type: 'tmpfs', options: ['rw', 'nosuid'] });
    assert.equal(mountOf('/dev/shmx', mounts('rw'))?.point, '/');
  });

  (linux ? it : it.skip)('a memory file system that allows execution and has room; else the temporary folder (noexec, read-only, a disk, too large)', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-place-'));
    const real = fs.realpathSync(folder);
    const at = (options: string, type = 'tmpfs') => `/dev/vda / ext4 rw 0 0\ntmpfs ${real} ${type} ${options} 0 0\n`;
    assert.deepEqual(await snapshotParent(1000, { memoryFolder: folder, mounts: at('rw,relatime') }), { folder, memory: true });
    assert.deepEqual(await snapshotParent(1000, { memoryFolder: folder, mounts: at('rw,nosuid,nodev,noexec') }), { folder: os.tmpdir(), memory: false });
    assert.deepEqual(await snapshotParent(1000, { memoryFolder: folder, mounts: at('ro') }), { folder: os.tmpdir(), memory: false });
    assert.deepEqual(await snapshotParent(1000, { memoryFolder: folder, mounts: at('rw', 'ext4') }), { folder: os.tmpdir(), memory: false });
    assert.deepEqual(await snapshotParent(Number.MAX_SAFE_INTEGER, { memoryFolder: folder, mounts: at('rw') }), { folder: os.tmpdir(), memory: false });
  });
});
