import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILT_CLI } from '../support/cli-helpers';
import { REPO_ROOT } from '../support/repo-root';

/**
 * The harness that says whether a run is green: the PATH a "no ripgrep" stage gets, the verdict
 * of `npm test`, the stand-ins for the user's own folders, the compiled tests removed before a
 * build, and `.only` refused. Loaded from the harness files themselves (plain ES modules).
 */

const REPO = REPO_ROOT;

interface Tier {
  name: string;
  passed: number;
  failed: number;
  skipped: number;
  seconds?: number;
  problems?: string[];
}
interface Harness {
  pathWithout(hidden: string | string[], dir: string, PATH?: string): string;
  findOnPath(program: string, PATH?: string): string | undefined;
  verdict(tiers: Tier[], o: { ci: boolean }): { lines: string[]; last: string; exitCode: number };
  userFoldersStandIn(prefix?: string): { env: Record<string, string>; left(): string[]; remove(): void };
  userFolderProblems(left: string[]): string[];
  removeCompiledTests(root: string): void;
}

async function harness(): Promise<Harness> {
  const load = (file: string) => import(pathToFileURL(path.join(REPO, 'test', 'harness', file)).href);
  return { ...(await load('hide-program.mjs')), ...(await load('tiers.mjs')) } as Harness;
}

function tempDir(name: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `ideal-state-harness-${name}-`));
}

function program(dir: string, name: string, body = 'exit 0'): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
}

describe('test harness: a stage without ripgrep keeps every other program', () => {
  it('keeps node (and the rest of the folder) when rg shares its folder, as /usr/bin with Debian ripgrep', async () => {
    const h = await harness();
    const root = tempDir('path');
    const usrBin = path.join(root, 'usr-bin');
    const local = path.join(root, 'local-bin');
    program(usrBin, 'rg');
    program(usrBin, 'node', 'echo shared-node');
    program(usrBin, 'git');
    program(local, 'node', 'echo first-node');
    program(local, 'rg');
    fs.writeFileSync(path.join(usrBin, 'README'), 'not a program'); // not executable: not linked
    const PATH = [local, usrBin, path.join(root, 'missing')].join(path.delimiter);

    const shims = h.pathWithout('rg', path.join(root, 'shims'), PATH);
    assert.equal(h.findOnPath('rg', shims), undefined, 'rg is hidden, from every folder');
    assert.ok(h.findOnPath('node', shims), 'node stays');
    assert.ok(h.findOnPath('git', shims), 'git stays');
    assert.equal(h.findOnPath('README', shims), undefined);
    // The first node on the PATH is the one kept, as a shell would find it.
    const shell = spawnSync('/bin/sh', ['-c', 'node; command -v rg || echo no-rg'], { env: { PATH: shims }, encoding: 'utf8' });
    assert.equal(shell.stdout, 'first-node\nno-rg\n', shell.stderr);
  });

  it('the built command line started with that PATH finds node for its commands and no rg for its Greps', async () => {
    const h = await harness();
    const rg = h.findOnPath('rg');
    const root = tempDir('cli');
    // Where this machine has no rg on PATH, one beside node stands for Debian's.
    const bin = path.join(root, 'bin');
    program(bin, 'rg', 'exit 0');
    const PATH = [bin, process.env.PATH ?? ''].join(path.delimiter);
    const shims = h.pathWithout('rg', path.join(root, 'shims'), PATH);
    const ws = path.join(root, 'ws');
    fs.mkdirSync(path.join(ws, '.ideal-state', 'prds'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'notes.md'), 'the marker X-Bench-Marker is here\n');
    const prd = path.join(ws, '.ideal-state', 'prds', 'PRD-20261128-path.md');
    fs.writeFileSync(prd, ['---', 'prd: true', 'id: PRD-20261128-path', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# Path', '', '## Ideal State Criteria', '- [ ] ISC-1: Node runs | Verify: CLI: node -e "process.exit(0)"', '- [ ] ISC-2: The marker is written | Verify: Grep: X-Bench-Marker', ''].join('\n'));
    const r = spawnSync(process.execPath, [BUILT_CLI, 'verify', prd, '--workspace', ws, '--json', '--no-store', '--yes'], { encoding: 'utf8', env: { ...process.env, PATH: shims, IDEAL_STATE_STATE_DIR: path.join(root, 'state') } });
    const json = JSON.parse(r.stdout) as { results: { id: string; outcome: string; evidence: string }[] };
    assert.deepEqual(json.results.map((x) => [x.id, x.outcome]), [['ISC-1', 'PASS'], ['ISC-2', 'PASS']], r.stdout + r.stderr);
    assert.match(json.results[1]!.evidence, /JS search/, `the Grep used no rg (${rg ?? 'none on this PATH'})`);
  });
});

describe("test harness: npm test's verdict", () => {
  const tiers = (hosts: Partial<Tier>): Tier[] => [
    { name: 'unit', passed: 10, failed: 0, skipped: 0, seconds: 1 },
    { name: 'hosts', passed: 0, failed: 0, skipped: 0, seconds: 1, ...hosts },
  ];

  it('a hosts tier that could install none of its programs (every test skipped) is not a pass: the last line says "not run" and the run exits 1', async () => {
    const h = await harness();
    const local = h.verdict(tiers({ skipped: 38 }), { ci: false });
    assert.equal(local.exitCode, 1);
    assert.match(local.last, /^10 passed, 0 failed, 38 not run \(hosts\): not a pass$/);
    const ci = h.verdict(tiers({ skipped: 38 }), { ci: true });
    assert.equal(ci.exitCode, 1);
    assert.match(ci.lines.find((l) => l.startsWith('hosts:'))!, /1 failed, 38 not run .*FAILED/);
    assert.match(ci.last, /1 failed, 38 not run/);
  });

  it('passes only when every tier ran tests and all passed; a tier that ran none, or wrote into the user\'s folders, fails', async () => {
    const h = await harness();
    const green = h.verdict(tiers({ passed: 5 }), { ci: true });
    assert.deepEqual([green.exitCode, green.last], [0, '15 passed, 0 failed']);
    const empty = h.verdict(tiers({}), { ci: false });
    assert.equal(empty.exitCode, 1);
    assert.ok(empty.lines.some((l) => /hosts: ran no test at all/.test(l)), empty.lines.join('\n'));
    const wrote = h.verdict(tiers({ passed: 5, problems: h.userFolderProblems(['state/ideal-state/ws-1/gate-state.json']) }), { ci: false });
    assert.equal(wrote.exitCode, 1);
    assert.ok(wrote.lines.some((l) => /wrote into the user's own state or data folder.*gate-state\.json/.test(l)), wrote.lines.join('\n'));
  });
});

describe("test harness: the user's own folders", () => {
  it("names what a command line without its own state folder wrote into the user's state and data folders", async () => {
    const h = await harness();
    const standIn = h.userFoldersStandIn();
    try {
      const ws = tempDir('ws');
      fs.mkdirSync(path.join(ws, '.ideal-state', 'prds'), { recursive: true });
      fs.writeFileSync(path.join(ws, '.ideal-state', 'prds', 'PRD-20261128-user.md'), ['---', 'prd: true', 'id: PRD-20261128-user', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# User', '', '## Ideal State Criteria', '- [ ] ISC-1: A changelog exists | Verify: Read: CHANGELOG.md', ''].join('\n'));
      assert.deepEqual(standIn.left(), []);
      const env: NodeJS.ProcessEnv = { ...process.env, ...standIn.env };
      delete env.IDEAL_STATE_STATE_DIR;
      // What Claude Code sends a Stop hook (https://code.claude.com/docs/en/hooks#stop-input).
      const stop = JSON.stringify({ session_id: 'harness', transcript_path: path.join(ws, 'transcript.jsonl'), cwd: ws, hook_event_name: 'Stop', stop_hook_active: false });
      const gate = spawnSync(process.execPath, [BUILT_CLI, 'gate', '--host', 'claude-code', '--workspace', ws], { encoding: 'utf8', env, input: stop });
      assert.match(gate.stdout, /"decision":"block"/, gate.stderr);
      const left = standIn.left();
      assert.ok(left.some((f) => /^state\/ideal-state\/.*gate-state\.json$/.test(f)), left.join('\n'));
      assert.ok(left.some((f) => /^data\/ideal-state\/workspaces\//.test(f)), left.join('\n'));
      assert.equal(h.userFolderProblems(left).length, 1);
    } finally {
      standIn.remove();
    }
  });
});

describe('test harness: stale compiled tests and .only', () => {
  it('removes the compiled tests of an earlier build before a run', async () => {
    const h = await harness();
    const root = tempDir('out');
    const stale = path.join(root, 'out', 'test', 'unit', 'renamed-long-ago.test.js');
    fs.mkdirSync(path.dirname(stale), { recursive: true });
    fs.writeFileSync(stale, '');
    fs.writeFileSync(path.join(root, 'out', 'cli-metafile.json'), '{}');
    h.removeCompiledTests(root);
    assert.equal(fs.existsSync(path.join(root, 'out', 'test')), false);
    assert.ok(fs.existsSync(path.join(root, 'out', 'cli-metafile.json')), 'only the compiled tests go');
  });

  it('the unit config refuses `.only` on every machine, CI or not, and runs only the test file named', function () {
    this.timeout(60_000);
    const dir = tempDir('only');
    const only = path.join(dir, 'only.test.js');
    fs.writeFileSync(only, "it.only('one', () => {});\nit('two', () => {});\n");
    const plain = path.join(dir, 'plain.test.js');
    fs.writeFileSync(plain, "it('alone', () => {});\n");
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.CI;
    const mocha = path.join(REPO, 'node_modules', 'mocha', 'bin', 'mocha.js');
    const refused = spawnSync(process.execPath, [mocha, only], { cwd: REPO, env, encoding: 'utf8' });
    assert.notEqual(refused.status, 0, refused.stdout);
    assert.match(refused.stdout + refused.stderr, /\.only.*forbidden|forbid/i);
    const alone = spawnSync(process.execPath, [mocha, '--dry-run', plain], { cwd: REPO, env, encoding: 'utf8' });
    assert.match(alone.stdout, /\b1 passing/, alone.stdout + alone.stderr);
  });

  it('the e2e, hosts and integration tiers refuse `.only` too', () => {
    for (const file of ['test/e2e/.mocharc.json', 'test/hosts/.mocharc.json']) {
      assert.equal((JSON.parse(fs.readFileSync(path.join(REPO, file), 'utf8')) as { forbidOnly?: boolean }).forbidOnly, true, file);
    }
    assert.match(fs.readFileSync(path.join(REPO, 'test', 'integration', 'index.ts'), 'utf8'), /new Mocha\(\{[^}]*forbidOnly: true/);
  });
});
