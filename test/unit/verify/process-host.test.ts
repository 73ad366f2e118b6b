import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ProcessHost } from '../../../src/verify/process-host';
import { runCommand } from '../../../src/verify/run-command';
import { runRipgrep } from '../../../src/verify/search-ripgrep';
import { REPO_ROOT } from '../support/repo-root';

/**
 * The MCP server starts its checks' commands and ripgrep from a small process of its own
 * (src/verify/process-host.ts, dist/process-host.cjs): a fork copies the forking process, so
 * from the server each check cost its main thread some 4 ms (issue 26). What comes back must be
 * what the same call returns in this process; a cancel must reach the command; a host that dies
 * must cost nothing but time.
 */
const ROOT = REPO_ROOT;
const ENTRY = path.join(ROOT, 'dist', 'process-host.cjs');
const BUILT_CLI = path.join(ROOT, 'dist', 'cli.js');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'process-host-'));
const quiet = () => undefined;

function started(log: (s: string) => void = quiet): ProcessHost {
  const host = ProcessHost.start(ENTRY, log);
  assert.ok(host, `${ENTRY} is missing: run node esbuild.mjs`);
  return host;
}

/** The parent of the shell a command runs in (the process that forked it). */
const PARENT_OF_SHELL = 'echo "parent=$PPID"';

describe('the process host: checks started from a small process (issue 26)', function () {
  this.timeout(20_000);
  const hosts: ProcessHost[] = [];
  afterEach(() => hosts.splice(0).forEach((h) => h.dispose()));

  it('runs a command from the host, not from this process, and answers what runCommand answers here', async () => {
    const host = started();
    hosts.push(host);
    const dir = tmp();
    const command = 'echo out; echo err >&2; exit 3';
    const there = await host.runCommand({ command, cwd: dir, timeoutMs: 10_000 });
    const here = await runCommand({ command, cwd: dir, timeoutMs: 10_000 });
    assert.deepEqual({ ...there, durationMs: 0 }, { ...here, durationMs: 0 });
    assert.equal(there.kind, 'exited');
    assert.equal((there as { exitCode: number }).exitCode, 3);
    const parent = await host.runCommand({ command: PARENT_OF_SHELL, cwd: dir, timeoutMs: 10_000 });
    assert.equal(parent.output.trim(), `parent=${host.pid}`);
    assert.notEqual(host.pid, process.pid);
    // The environment is scrubbed there as here: a secret never reaches the command.
    const secret = await host.runCommand({ command: 'echo "[$IDEAL_STATE_TEST_API_KEY]"', cwd: dir, timeoutMs: 10_000, env: { ...process.env, IDEAL_STATE_TEST_API_KEY: 'sk-live-abcdefghijklmnop' } });
    assert.equal(secret.output.trim(), '[]');
  });

  it('runs ripgrep from the host with the same reading of its output', async () => {
    const host = started();
    hosts.push(host);
    const dir = tmp();
    // A stand-in rg that prints what `rg --null --line-number` prints: the host only starts it and reads it.
    const rg = path.join(dir, 'rg');
    fs.writeFileSync(rg, `#!/bin/sh\nprintf './src/a.ts\\0003:x\\n./src/a.ts\\0007:y\\nb.md\\0001:z\\n'\necho 'rg: ./locked.txt: Permission denied (os error 13)' >&2\nexit 2\n`, { mode: 0o755 });
    const options = { rg, args: ['-e', 'x', '--', '.'], cwd: dir, timeoutMs: 10_000, keep: 1 };
    const there = await host.runRipgrep(options);
    assert.deepEqual(there, await runRipgrep(options));
    assert.deepEqual(there, { kind: 'closed', code: 2, perFile: [['src/a.ts', 2, [3]], ['b.md', 1, [1]]], stderr: 'rg: ./locked.txt: Permission denied (os error 13)\n' });
    const missing = await host.runRipgrep({ ...options, rg: path.join(dir, 'no-such-rg') });
    assert.equal(missing.kind, 'spawn-error');
  });

  it('a cancel reaches the host: the command is killed and the answer is cancelled', async () => {
    const host = started();
    hosts.push(host);
    const controller = new AbortController();
    const began = Date.now();
    setTimeout(() => controller.abort(), 300);
    const result = await host.runCommand({ command: 'sleep 30', cwd: tmp(), timeoutMs: 60_000, signal: controller.signal, killGraceMs: 500 });
    assert.equal(result.kind, 'cancelled');
    assert.ok(Date.now() - began < 5000, `answered in ${Date.now() - began} ms`);
    // A request already cancelled does not go to the host at all.
    const already = await host.runCommand({ command: 'echo never', cwd: tmp(), timeoutMs: 1000, signal: controller.signal });
    assert.equal(already.kind, 'cancelled');
  });

  it('a host that dies costs only time: its requests run again here, and so does everything after', async () => {
    const logged: string[] = [];
    const host = started((s) => logged.push(s));
    hosts.push(host);
    const dir = tmp();
    let commandPid: number | undefined;
    const pending = host.runCommand({ command: 'sleep 0.5; echo ran >> ran.txt; echo done', cwd: dir, timeoutMs: 10_000, onSpawn: (pid) => (commandPid = pid) });
    for (let i = 0; i < 100 && commandPid === undefined; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(commandPid !== undefined, 'the host told the command\'s process id');
    process.kill(host.pid!, 'SIGKILL');
    const result = await pending;
    assert.equal(result.kind, 'exited');
    assert.equal(result.output.trim(), 'done');
    // The command the host had started was killed with it: it ran once, here, not twice.
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(fs.readFileSync(path.join(dir, 'ran.txt'), 'utf8'), 'ran\n');
    assert.equal(host.pid, undefined);
    assert.match(logged.join('\n'), /the process host ended \(SIGKILL\); checks run from this process/);
    const after = await host.runCommand({ command: PARENT_OF_SHELL, cwd: dir, timeoutMs: 10_000 });
    assert.equal(after.output.trim(), `parent=${process.pid}`);
  });

  (process.platform === 'linux' ? it : it.skip)("starts without NODE_EXTRA_CA_CERTS (a start's cost; it connects nowhere) and gives it back to the checks", async () => {
    const had = process.env.NODE_EXTRA_CA_CERTS;
    process.env.NODE_EXTRA_CA_CERTS = '/etc/ssl/certs/ideal-state-test-bundle.pem';
    try {
      const host = await ProcessHost.startDetached(ENTRY, quiet);
      assert.ok(host, `${ENTRY} is missing: run node esbuild.mjs`);
      hosts.push(host);
      const own = fs.readFileSync(`/proc/${host.pid}/environ`, 'utf8').split('\0');
      assert.ok(!own.some((v) => v.startsWith('NODE_EXTRA_CA_CERTS=')), 'the host parsed no certificates');
      const seen = await host.runCommand({ command: 'echo "[$NODE_EXTRA_CA_CERTS][${IDEAL_STATE_HOST_EXTRA_CA_CERTS-unset}]"', cwd: tmp(), timeoutMs: 10_000 });
      assert.equal(seen.output.trim(), '[/etc/ssl/certs/ideal-state-test-bundle.pem][unset]');
    } finally {
      if (had === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
      else process.env.NODE_EXTRA_CA_CERTS = had;
    }
  });

  it('no host file, no host: the caller runs its checks itself', () => {
    assert.equal(ProcessHost.start(path.join(tmp(), 'process-host.cjs'), quiet), undefined);
  });

  it('ends when its parent lets go', async () => {
    const host = started();
    const pid = host.pid!;
    host.dispose();
    const gone = async () => {
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          return true;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      return false;
    };
    assert.ok(await gone(), `the host ${pid} is still running`);
  });

  it('the MCP server starts its checks from its process host', async () => {
    const dir = tmp();
    const check = `(cat /proc/$PPID/cmdline 2>/dev/null || ps -o args= -p $PPID) | grep -q process-host.cjs`;
    fs.mkdirSync(path.join(dir, '.ideal-state', 'prds'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.ideal-state', 'verify-commands.yaml'), `commands:\n  - ${JSON.stringify(check)}\n`);
    fs.writeFileSync(
      path.join(dir, '.ideal-state', 'prds', 'PRD-20261127-host.md'),
      `---\nprd: true\nid: PRD-20261127-host\nstatus: IN_PROGRESS\neffort_level: STANDARD\ncreated: 2026-11-27\nupdated: 2026-11-27\niteration: 0\nmax_iterations: 2\n---\n\n# Checks start from the host\n\n## Ideal State Criteria\n- [ ] ISC-1: The check's shell is started by the process host | Verify: CLI: ${check}\n`,
    );
    const store = path.join(tmp(), 'store.sqlite');
    const client = new Client({ name: 'ideal-state-test', version: '1.0.0' });
    const env = { ...(getDefaultEnvironment() as Record<string, string>), IDEAL_STATE_STATE_DIR: path.join(path.dirname(store), 'state') };
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BUILT_CLI, 'mcp', '--workspace', dir, '--store', store], stderr: 'ignore', env }));
    try {
      const r = (await client.callTool({ name: 'ideal-state_verify', arguments: {} })) as { isError?: boolean; content: { text: string }[] };
      const answer = JSON.parse(r.content[0]!.text) as { results: { id: string; outcome: string; evidence: string }[] };
      assert.deepEqual(answer.results.map((x) => [x.id, x.outcome]), [['ISC-1', 'PASS']], JSON.stringify(answer.results));
    } finally {
      await client.close();
    }
  });
});
