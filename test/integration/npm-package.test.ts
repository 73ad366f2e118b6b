import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The command line as a stranger gets it: this repository packed (`npm pack`, its `files` list),
 * the tarball installed into an empty prefix with an empty npm cache and a registry that does not
 * answer (`--offline`, registry 127.0.0.1:9), so the install needs nothing beyond the tarball.
 * Then, through the installed bin only: `--version`, `gate install claude-code --yes` in a
 * scratch git repository, the hook it wrote fed a Stop payload on stdin as Claude Code feeds it
 * (https://code.claude.com/docs/en/hooks "Stop input"): blocked while the CRITICAL criterion
 * fails, let through once it passes; `verify --json`; and `mcp` answering `tools/list`.
 * Run once per Node this machine has (the one on PATH, the extension host's own, and any in
 * IDEAL_STATE_TEST_NODES, colon-separated): the bin is `#!/usr/bin/env node`, so the Node is
 * chosen by PATH, as on a user's machine.
 */
const REPO = path.resolve(__dirname, '..', '..', '..');
const VERSION = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const PRD = '.ideal-state/prds/PRD-20261128-package.md';
const PRD_TEXT = ['---', 'prd: true', 'id: PRD-20261128-package', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# Package', '', '## Ideal State Criteria', '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md', '', '## LOG', ''].join('\n');

function onPath(program: string, pathVar = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathVar.split(path.delimiter)) {
    const file = path.join(dir, program);
    if (dir && fs.existsSync(file)) return fs.realpathSync(file);
  }
  return undefined;
}

function nodes(): string[] {
  const extra = (process.env.IDEAL_STATE_TEST_NODES ?? '').split(':').filter(Boolean);
  const found = [onPath('node'), process.execPath, ...extra].filter((n): n is string => n !== undefined && /(^|[\\/])node(\.exe)?$/.test(n));
  return [...new Set(found.map((n) => fs.realpathSync(n)))];
}

function check(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.error, undefined, `${what}: ${r.error?.message}`);
  assert.equal(r.status, 0, `${what} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

describe('the command line as an npm package, installed from its tarball alone', function () {
  this.timeout(300_000);
  let tarball: string;
  let scratch: string;

  before(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-npm-package-'));
    const npm = onPath('npm');
    assert.ok(npm, 'npm is not on PATH');
    const out = check(spawnSync(npm, ['pack', '--json', '--pack-destination', scratch, '--cache', path.join(scratch, 'pack-cache')], { cwd: REPO, encoding: 'utf8' }), 'npm pack');
    const packed = (JSON.parse(out) as Array<{ filename: string; files: Array<{ path: string }> }>)[0]!;
    tarball = path.join(scratch, packed.filename);
    const files = packed.files.map((f) => f.path);
    for (const needed of ['dist/cli.js', 'dist/cli.mjs', 'dist/cli-lean.cjs', 'dist/process-host.cjs', 'dist/sql-wasm.wasm', 'isc-definitions/code.feature.yaml', 'README.md', 'LICENSE', 'CHANGELOG.md']) {
      assert.ok(files.includes(needed), `the tarball lacks ${needed}`);
    }
    const strays = files.filter((f) => /^(src|test|bench|webviews|build|demo|node_modules)\//.test(f) || f.endsWith('.map'));
    assert.deepEqual(strays, [], 'sources, tests, maps or node_modules in the tarball');
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { dependencies?: object };
    assert.deepEqual(Object.keys(manifest.dependencies ?? {}), [], 'a runtime dependency: the bundles hold what they run');
  });

  after(() => fs.rmSync(scratch, { recursive: true, force: true, maxRetries: 3 }));

  for (const node of nodes()) {
    it(`installs with no network and gates a Stop, on ${node}`, async () => {
      const version = check(spawnSync(node, ['--version'], { encoding: 'utf8' }), 'node --version').trim();
      const home = fs.mkdtempSync(path.join(scratch, `home-${version}-`));
      const prefix = path.join(home, 'prefix');
      // A machine with this Node, git and the tarball: no ideal-state anywhere, an empty npm cache.
      const env: NodeJS.ProcessEnv = {
        PATH: [path.join(prefix, 'bin'), path.dirname(node), path.dirname(onPath('git') ?? '/usr/bin/git'), '/usr/bin', '/bin'].join(path.delimiter),
        HOME: home,
        XDG_STATE_HOME: path.join(home, 'state'),
        XDG_DATA_HOME: path.join(home, 'data'),
        XDG_CACHE_HOME: path.join(home, 'cache'),
        IDEAL_STATE_STATE_DIR: path.join(home, 'gate-state'),
      };
      const npm = onPath('npm');
      const install = spawnSync(node, [npmCli(npm!), 'install', '--global', '--prefix', prefix, '--offline', '--registry', 'http://127.0.0.1:9/', '--cache', path.join(home, 'npm-cache'), '--no-audit', '--no-fund', tarball], { env, encoding: 'utf8' });
      check(install, 'npm install -g (offline) of the tarball');
      const bin = path.join(prefix, 'bin', 'ideal-state');
      assert.ok(fs.existsSync(bin), `no ${bin}`);
      assert.equal(check(spawnSync('ideal-state', ['--version'], { env, encoding: 'utf8' }), 'ideal-state --version').trim(), VERSION);

      const ws = path.join(home, 'repo');
      fs.mkdirSync(path.join(ws, path.dirname(PRD)), { recursive: true });
      check(spawnSync('git', ['init', '-q'], { cwd: ws, env, encoding: 'utf8' }), 'git init');
      fs.writeFileSync(path.join(ws, PRD), PRD_TEXT);
      const said = check(spawnSync('ideal-state', ['gate', 'install', 'claude-code', '--yes'], { cwd: ws, env, encoding: 'utf8' }), 'gate install claude-code --yes');
      const settings = JSON.parse(fs.readFileSync(path.join(ws, '.claude', 'settings.json'), 'utf8')) as { hooks: { Stop: Array<{ hooks: Array<{ command: string }> }> } };
      const hook = settings.hooks.Stop[0]!.hooks[0]!.command;
      const installed = fs.realpathSync(path.join(prefix, 'lib', 'node_modules', 'ideal-state', 'dist', 'cli.js'));
      assert.ok(hook.includes(installed), `the hook runs the installed cli.js (${installed}): ${hook}`);
      assert.ok(hook.startsWith(node) || hook.startsWith(`'${node}'`), `the hook runs the Node that installed it (${node}): ${hook}`);
      assert.match(said, /now runs/, said);

      // Claude Code runs the hook through a shell in the project, the payload on stdin.
      const stop = () => spawnSync('/bin/sh', ['-c', hook], { cwd: ws, env, encoding: 'utf8', input: JSON.stringify({ session_id: 'npm-package', transcript_path: path.join(home, 't.jsonl'), cwd: ws, hook_event_name: 'Stop', stop_hook_active: false }) });
      const blocked = stop();
      assert.equal(blocked.status, 0, blocked.stderr);
      const answer = JSON.parse(blocked.stdout.trim()) as { decision?: string; reason?: string };
      assert.equal(answer.decision, 'block', blocked.stdout);
      assert.match(answer.reason ?? '', /ISC-1/);
      fs.writeFileSync(path.join(ws, 'CHANGELOG.md'), '# Changelog\n');
      const through = stop();
      assert.equal(through.status, 0, through.stderr);
      assert.notEqual(through.stdout.trim() === '' ? undefined : (JSON.parse(through.stdout.trim()) as { decision?: string }).decision, 'block', through.stdout);

      const verified = JSON.parse(check(spawnSync('ideal-state', ['verify', PRD, '--json'], { cwd: ws, env, encoding: 'utf8' }), 'verify --json')) as { passed: boolean; results: Array<{ id: string; outcome: string }> };
      assert.equal(verified.passed, true);
      assert.deepEqual(verified.results.map((r) => [r.id, r.outcome]), [['ISC-1', 'PASS']]);

      const tools = await mcpToolNames(env, ws);
      assert.ok(tools.includes('ideal-state_verify') || tools.some((t) => /verify/.test(t)), `tools/list: ${tools.join(', ')}`);
      assert.ok(tools.some((t) => /criteria/.test(t)), `tools/list: ${tools.join(', ')}`);
    });
  }
});

/** npm's own entry (npm-cli.js), so npm runs on the Node under test, not on the one its shebang finds first. */
function npmCli(npm: string): string {
  const candidates = [path.join(path.dirname(npm), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'), path.join(path.dirname(npm), 'npm-cli.js')];
  const found = candidates.find((c) => fs.existsSync(c));
  assert.ok(found, `npm-cli.js beside ${npm}`);
  return found;
}

/**
 * The MCP server over stdio, as a host starts it: newline-delimited JSON-RPC, `initialize`, the
 * `notifications/initialized` notification, then `tools/list`
 * (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#stdio,
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle#initialization).
 */
function mcpToolNames(env: NodeJS.ProcessEnv, cwd: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('ideal-state', ['mcp'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let buffered = '';
    let stderr = '';
    const timer = setTimeout(() => (child.kill(), reject(new Error(`mcp: no tools/list answer in 60 s; stderr: ${stderr}`))), 60_000);
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (error) => (clearTimeout(timer), reject(error)));
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const message = JSON.parse(line) as { id?: number; result?: { tools?: Array<{ name: string }> }; error?: unknown };
        if (message.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
        } else if (message.id === 2) {
          clearTimeout(timer);
          child.stdin.end();
          if (!message.result?.tools) reject(new Error(`tools/list: ${line}`));
          else resolve(message.result.tools.map((t) => t.name));
        }
      }
    });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'npm-package-test', version: '1' } } });
  });
}
