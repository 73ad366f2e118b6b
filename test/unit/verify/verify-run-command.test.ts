import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runCommand } from '../../../src/verify/run-command';
import { isSecretName, scrubEnvironment } from '../../../src/verify/secret-env';
import { alive, pids, until, workspace } from '../support/verify-helpers';

// A command that starts a grandchild (sleep) in the background, records both pids, and waits.
const TREE = `sleep 30 & echo $$ $! > pids.txt; wait`;

describe('verify: running a command', () => {
  it('passes back the exit code and the output', async () => {
    const root = workspace();
    const ok = await runCommand({ command: 'echo hello; echo oops >&2', cwd: root, timeoutMs: 10_000 });
    assert.equal(ok.kind, 'exited');
    assert.equal(ok.kind === 'exited' && ok.exitCode, 0);
    assert.match(ok.output, /hello\noops\n/);
    const bad = await runCommand({ command: 'exit 3', cwd: root, timeoutMs: 10_000 });
    assert.deepEqual([bad.kind, bad.kind === 'exited' && bad.exitCode], ['exited', 3]);
  });

  it('runs in the given folder', async () => {
    const root = workspace({ 'sub/x': '' });
    const r = await runCommand({ command: 'pwd', cwd: path.join(root, 'sub'), timeoutMs: 10_000 });
    assert.equal(r.output.trim(), path.join(root, 'sub'));
  });

  it('on timeout kills the whole process tree', async () => {
    const root = workspace();
    const r = await runCommand({ command: TREE, cwd: root, timeoutMs: 500 });
    assert.equal(r.kind, 'timeout');
    const [shell, sleeper] = pids(path.join(root, 'pids.txt'));
    assert.ok(shell && sleeper, 'the command recorded its pids');
    await until(() => !alive(shell!) && !alive(sleeper!), 'the shell and its background sleep to be gone');
  });

  it('kills a tree that ignores SIGTERM with SIGKILL after the grace period', async () => {
    const root = workspace();
    const r = await runCommand({ command: `trap '' TERM; sh -c "trap '' TERM; sleep 30" & echo $$ $! > pids.txt; wait`, cwd: root, timeoutMs: 400, killGraceMs: 300 });
    assert.equal(r.kind, 'timeout');
    for (const pid of pids(path.join(root, 'pids.txt'))) await until(() => !alive(pid), `pid ${pid} to be gone`);
  });

  it('on cancel (AbortSignal) kills the whole process tree and says cancelled', async () => {
    const root = workspace();
    const controller = new AbortController();
    const running = runCommand({ command: TREE, cwd: root, timeoutMs: 60_000, signal: controller.signal });
    await until(() => pids(path.join(root, 'pids.txt')).length === 2, 'the command to start');
    controller.abort();
    const r = await running;
    assert.equal(r.kind, 'cancelled');
    for (const pid of pids(path.join(root, 'pids.txt'))) await until(() => !alive(pid), `pid ${pid} to be gone`);
  });

  it('does not wait for a background process that keeps the output open, and kills it', async () => {
    const root = workspace();
    const r = await runCommand({ command: 'sleep 30 & echo $! > pids.txt; echo done', cwd: root, timeoutMs: 20_000 });
    assert.equal(r.kind, 'exited');
    assert.ok(r.durationMs < 10_000, `took ${r.durationMs} ms`);
    const [sleeper] = pids(path.join(root, 'pids.txt'));
    await until(() => !alive(sleeper!), 'the leftover sleep to be killed');
  });

  it('keeps only a bounded tail of huge output', async () => {
    const root = workspace();
    // About 6 MB of output, then a last line that must be kept.
    const r = await runCommand({ command: `node -e "const l='x'.repeat(1023)+'\\n'; for (let i=0;i<6000;i++) process.stdout.write(l); console.log('THE END')"`, cwd: root, timeoutMs: 30_000, maxOutputBytes: 64 * 1024 });
    assert.equal(r.kind, 'exited');
    assert.ok(Buffer.byteLength(r.output) <= 64 * 1024, `kept ${Buffer.byteLength(r.output)} bytes`);
    assert.match(r.output, /THE END\n$/);
    assert.equal(r.outputBytes, 6000 * 1024 + 'THE END\n'.length);
    assert.equal(r.droppedBytes, r.outputBytes - 64 * 1024);
  });

  it('gives the command no secrets from the environment', async () => {
    const root = workspace();
    const env = { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-planted-1', ANTHROPIC_API_KEY: 'sk-ant-planted-2', GITHUB_TOKEN: 'ghp_planted3', AWS_SECRET_ACCESS_KEY: 'planted4', DB_PASSWORD: 'planted5', MY_SECRET: 'planted6', NPM_CONFIG__AUTHTOKEN: 'planted7', KEEP_ME: 'visible' };
    const r = await runCommand({ command: 'env', cwd: root, timeoutMs: 10_000, env });
    assert.match(r.output, /KEEP_ME=visible/);
    assert.doesNotMatch(r.output, /planted/);
    assert.deepEqual(Object.keys(scrubEnvironment(env)).sort(), ['KEEP_ME', 'PATH']);
    assert.equal(isSecretName('KEYBOARD_LAYOUT'), false);
    assert.equal(isSecretName('HOME'), false);
  });

  it('reports a program that cannot start as spawn-failed, not as an exception', async () => {
    const root = workspace();
    const r = await runCommand({ command: path.join(root, 'no-such-program'), args: [], cwd: root, timeoutMs: 5_000 });
    assert.equal(r.kind, 'spawn-failed');
    const gone = await runCommand({ command: 'true', cwd: path.join(root, 'missing-folder'), timeoutMs: 5_000 });
    assert.equal(gone.kind, 'spawn-failed');
  });
});
