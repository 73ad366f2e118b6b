import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freezeWorkspace } from '../../../../src/app/gate/frozen';
import { gateStartMs } from '../../../../src/app/gate/gate-start';
import { takeSnapshot } from '../../../../src/app/gate/snapshot';
import { fingerprint, OwnWrites, workspaceChanges } from '../../../../src/app/gate/workspace-fingerprint';
import { ProcessHost } from '../../../../src/verify/process-host';
import { REPO_ROOT } from '../../support/repo-root';

/**
 * The parts of the gate's frozen state (src/app/gate/frozen.ts): the snapshot copies the source
 * and links what is ignored; the fingerprint names a change made while the gate verified, and
 * leaves alone what an honest agent's stop brings (ignored folders the checks write, the gate's
 * own LOG entry); the process host the checks start from is not the gate's child.
 */
const ENTRY = path.resolve(REPO_ROOT, 'dist/process-host.cjs');

function project(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-frozen-'));
  fs.mkdirSync(path.join(ws, 'src'));
  fs.mkdirSync(path.join(ws, 'node_modules', '.bin'), { recursive: true });
  fs.mkdirSync(path.join(ws, 'dist'));
  fs.writeFileSync(path.join(ws, '.gitignore'), 'dist/\n*.log\n');
  fs.writeFileSync(path.join(ws, 'src', 'a.js'), 'module.exports = 1;\n');
  fs.writeFileSync(path.join(ws, 'dist', 'a.js'), 'built\n');
  fs.writeFileSync(path.join(ws, 'debug.log'), 'x\n');
  fs.writeFileSync(path.join(ws, 'node_modules', '.bin', 'checker'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
  fs.symlinkSync('a.js', path.join(ws, 'src', 'b.js'));
  return ws;
}

describe('the gate\'s frozen state: snapshot, fingerprint, detached process host', function () {
  this.timeout(30_000);

  it('copies the source (modes and times kept), links ignored entries and node_modules to the live ones, keeps links as written', async () => {
    const ws = project();
    const old = new Date('2020-01-02T03:04:05Z');
    fs.utimesSync(path.join(ws, 'src', 'a.js'), old, old);
    const taken = await takeSnapshot(ws);
    assert.ok(taken.ok, !taken.ok ? taken.message : '');
    const root = taken.snapshot.root;
    try {
      assert.ok(path.relative(ws, root).startsWith('..'), 'outside the workspace');
      assert.equal(fs.lstatSync(path.join(root, 'src', 'a.js')).isFile(), true);
      assert.equal(fs.statSync(path.join(root, 'src', 'a.js')).mtime.toISOString(), old.toISOString());
      assert.equal(fs.readlinkSync(path.join(root, 'src', 'b.js')), 'a.js');
      for (const linked of ['dist', 'debug.log', 'node_modules']) assert.equal(fs.readlinkSync(path.join(root, linked)), path.join(fs.realpathSync(ws), linked), linked);
      assert.equal(taken.snapshot.copied, 2, '.gitignore and src/a.js');
      // A change to the live source after the copy is not seen in it.
      fs.writeFileSync(path.join(ws, 'src', 'a.js'), 'module.exports = 2;\n');
      fs.writeFileSync(path.join(ws, 'CHANGELOG.md'), '# late\n');
      assert.equal(fs.readFileSync(path.join(root, 'src', 'a.js'), 'utf8'), 'module.exports = 1;\n');
      assert.equal(fs.existsSync(path.join(root, 'CHANGELOG.md')), false);
    } finally {
      await taken.snapshot.dispose();
    }
    assert.equal(fs.existsSync(root), false, 'removed');
    assert.equal(fs.existsSync(path.join(ws, 'node_modules', '.bin', 'checker')), true, 'never what its links point to');
  });

  it('a workspace over the bound is not copied, with the reason', async () => {
    const taken = await takeSnapshot(project(), { fileLimit: 1 });
    assert.deepEqual(taken, { ok: false, message: 'the workspace has more than 1 source files to copy' });
  });

  it('names source added, changed or removed meanwhile, and written after the gate began; not ignored folders, nor the gate\'s own write', async () => {
    const ws = project();
    const since = Date.now() + 60_000;
    const before = await fingerprint(ws);
    // What an honest stop brings: the checks write build output and caches, the gate its LOG entry.
    fs.writeFileSync(path.join(ws, 'dist', 'a.js'), 'rebuilt\n');
    fs.writeFileSync(path.join(ws, 'node_modules', '.cache'), 'x');
    fs.writeFileSync(path.join(ws, 'other.log'), 'x');
    const own = new OwnWrites(ws);
    fs.writeFileSync(path.join(ws, 'src', 'prd.md.tmp'), 'LOG');
    fs.renameSync(path.join(ws, 'src', 'prd.md.tmp'), path.join(ws, 'src', 'prd.md'));
    await own.ownWrite(path.join(ws, 'src', 'prd.md'));
    assert.deepEqual(workspaceChanges(before, await fingerprint(ws), { sinceMs: since, own }), [], 'an honest stop is never a change');
    // A watcher's file, a weakened source file.
    fs.writeFileSync(path.join(ws, 'CHANGELOG.md'), '# Changelog\n');
    fs.writeFileSync(path.join(ws, 'src', 'a.js'), 'module.exports = 22;\n');
    fs.rmSync(path.join(ws, 'src', 'b.js'));
    assert.deepEqual(workspaceChanges(before, await fingerprint(ws), { sinceMs: since, own }).sort(), ['CHANGELOG.md was added', 'src/a.js was changed', 'src/b.js was removed']);
    // A file the watcher wrote before the first look, after the gate's process began.
    const early = await fingerprint(ws);
    assert.deepEqual(workspaceChanges(early, early, { sinceMs: 0 }).filter((c) => c.startsWith('CHANGELOG.md')), ['CHANGELOG.md was written after the gate began']);
  });

  it("a main agent's stop counts a change meanwhile; a subagent's does not (other agents may work beside it), and its snapshot still holds", async () => {
    const ws = project();
    const since = Date.now() + 60_000;
    const guarded = await freezeWorkspace(ws, { sinceMs: since, log: () => undefined });
    const subagent = await freezeWorkspace(ws, { sinceMs: since, log: () => undefined, guard: false });
    try {
      fs.writeFileSync(path.join(ws, 'src', 'c.js'), '');
      assert.deepEqual(await guarded.changes(), ['src/c.js was added']);
      assert.deepEqual(await subagent.changes(), []);
      assert.equal(fs.existsSync(path.join(subagent.root, 'src', 'c.js')), false);
    } finally {
      await guarded.dispose();
      await subagent.dispose();
    }
    assert.equal(fs.existsSync(guarded.root), false);
  });

  it("the gate's start is when its process (or the shell it was run through) began, a little early, never later than Node's start", () => {
    const start = gateStartMs();
    assert.ok(start <= performance.timeOrigin, `${start} after ${performance.timeOrigin}`);
    assert.ok(start > performance.timeOrigin - 1100, `${performance.timeOrigin - start} ms early`);
  });

  (process.platform === 'linux' ? it : it.skip)('the detached host is not this process\'s child, and its commands see no IPC variable; it ends when let go', async () => {
    assert.ok(fs.existsSync(ENTRY), 'built by esbuild.mjs');
    const host = await ProcessHost.startDetached(ENTRY, () => undefined);
    assert.ok(host, 'started');
    const pid = host.pid!;
    const ppid = Number(/PPid:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
    assert.notEqual(ppid, process.pid);
    const r = await host.runCommand({ command: 'echo "$PPID"; env | grep -c NODE_CHANNEL || true', cwd: os.tmpdir(), timeoutMs: 10_000 });
    assert.equal(r.kind, 'exited');
    assert.deepEqual(r.kind === 'exited' ? r.output.trim().split('\n') : [], [String(pid), '0']);
    host.dispose();
    for (let i = 0; i < 100 && fs.existsSync(`/proc/${pid}`); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(fs.existsSync(`/proc/${pid}`), false, 'ended');
  });
});
