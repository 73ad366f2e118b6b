import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SNAPSHOT_PREFIX, takeSnapshot } from '../../../../src/app/gate/snapshot';
import { OWNER_SUFFIX, thisOwner, writeOwner } from '../../../../src/app/gate/snapshot-sweep';

/**
 * A gate or `verify` killed with SIGKILL runs no exit handler and leaves its snapshot behind (in
 * /dev/shm: memory until the machine restarts). The next snapshot made in the same place removes
 * the copies whose owner process is gone, and only those: never a copy whose owner runs, never a
 * folder without the owner marker.
 */

function workspace(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-sweep-ws-'));
  fs.writeFileSync(path.join(ws, 'a.js'), 'module.exports = 1;\n');
  return ws;
}

/** A pid that ran and has ended (its parent reaped it). */
function endedPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function leftCopy(parent: string, name: string, owner?: object): string {
  const folder = path.join(parent, SNAPSHOT_PREFIX + name);
  fs.mkdirSync(path.join(folder, 'src'), { recursive: true });
  fs.writeFileSync(path.join(folder, 'src', 'x.js'), 'x\n');
  if (owner) fs.writeFileSync(folder + OWNER_SUFFIX, JSON.stringify(owner));
  return folder;
}

describe('stale snapshots of killed gates are swept', function () {
  this.timeout(30_000);

  it('removes copies whose owner is gone, keeps those whose owner runs and those without a marker', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-sweep-'));
    const gone = leftCopy(parent, 'gone01', { pid: endedPid() });
    const running = leftCopy(parent, 'live01', { pid: process.pid });
    const unmarked = leftCopy(parent, 'nomark');
    const other = path.join(parent, 'other-folder');
    fs.mkdirSync(other);
    fs.writeFileSync(other + OWNER_SUFFIX, JSON.stringify({ pid: endedPid() }));
    const taken = await takeSnapshot(workspace(), { parent });
    assert.ok(taken.ok, taken.ok ? '' : taken.message);
    assert.deepEqual(taken.snapshot.swept, [fs.realpathSync(gone)]);
    // The copy's own marker is beside it, not in it: a check sees only the workspace's files.
    assert.deepEqual(fs.readdirSync(taken.snapshot.root).sort(), ['a.js']);
    assert.equal(JSON.parse(fs.readFileSync(taken.snapshot.root + OWNER_SUFFIX, 'utf8')).pid, process.pid);
    await taken.snapshot.dispose();
    assert.ok(!fs.existsSync(gone), 'the killed owner\'s copy is removed');
    assert.ok(!fs.existsSync(gone + OWNER_SUFFIX), 'and its marker');
    assert.ok(fs.existsSync(path.join(running, 'src', 'x.js')), 'a running owner\'s copy is kept');
    assert.ok(fs.existsSync(unmarked), 'a folder without a marker is kept');
    assert.ok(fs.existsSync(other), 'a folder without the prefix is kept');
    assert.ok(!fs.existsSync(taken.snapshot.root) && !fs.existsSync(taken.snapshot.root + OWNER_SUFFIX), 'its own copy and marker are removed');
  });

  (process.platform === 'linux' ? it : it.skip)('a pid given again to another process is not the owner (its start time differs)', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-sweep-'));
    // This process's pid, but a start time it never had: the owner that wrote it is gone.
    const reused = leftCopy(parent, 'reuse1', { pid: process.pid, start: '1' });
    const taken = await takeSnapshot(workspace(), { parent });
    assert.ok(taken.ok);
    assert.deepEqual(taken.snapshot.swept, [fs.realpathSync(reused)]);
    await taken.snapshot.dispose();
    assert.ok(!fs.existsSync(reused));
  });

  (process.platform === 'linux' ? it : it.skip)('a snapshot left by a process killed with SIGKILL is removed by the next one; its own is kept while it runs', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-sweep-'));
    const ws = workspace();
    // A process that owns a copy (its marker as takeSnapshot writes it: pid and start time) and waits to be killed.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    const root = fs.realpathSync(leftCopy(parent, 'killed'));
    writeOwner(root, thisOwner(child.pid!));
    const whileRunning = await takeSnapshot(ws, { parent });
    assert.ok(whileRunning.ok);
    assert.deepEqual(whileRunning.snapshot.swept, [], 'never a copy whose owner runs');
    await whileRunning.snapshot.dispose();
    assert.ok(fs.existsSync(path.join(root, 'src', 'x.js')));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    assert.ok(fs.existsSync(root), 'SIGKILL leaves the copy behind');
    const next = await takeSnapshot(ws, { parent });
    assert.ok(next.ok);
    assert.deepEqual(next.snapshot.swept, [root]);
    await next.snapshot.dispose();
    assert.ok(!fs.existsSync(root));
    assert.deepEqual(fs.readdirSync(parent), []);
  });
});
