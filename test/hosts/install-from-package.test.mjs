// The two lines a stranger types, in a fresh folder, with the real host: the command line
// installed from its packed tarball alone (`npm pack` of this repository, `npm install -g` into
// an empty prefix, offline, an empty npm cache: nothing but the tarball), then that installed
// `ideal-state gate install <host> --yes` in a scratch repository whose PRD's CRITICAL criterion
// fails. The host's real program, offline against the tier's fake provider (which holds its
// API's contract), is asked to finish; its scripted model says "done" at once. The first stop
// must be blocked by the hook the package wrote, the reason reach the model, the stop after the
// fix be let through, and the gate's verdict land in the PRD's LOG. The hook names the installed
// package's own cli.js, so no file of this repository is on the path the host runs.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../harness/paths.mjs';
import { startAnthropic } from './fake-anthropic.mjs';
import { startGemini } from './fake-gemini.mjs';
import { assertNoContractBreaks } from './http.mjs';
import { ModelScript, REASON_MARK } from './script.mjs';
import { needHost, removeMade, run, tempDir, wantHost } from './tier.mjs';

const PRD_PATH = '.ideal-state/prds/PRD-20261129-package.md';
const PRD = ['---', 'prd: true', 'id: PRD-20261129-package', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# From the package', '', '## Ideal State Criteria', '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md', '', '## LOG', ''].join('\n');
const PROMPT = 'Finish the task in this folder.';
const VERSION = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version;

function onPath(program) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, program);
    if (dir && fs.existsSync(file)) return fs.realpathSync(file);
  }
  return undefined;
}

/** npm's own entry, so npm runs on the Node under test rather than the one its shebang finds. */
function npmCli() {
  const npm = onPath('npm');
  assert.ok(npm, 'npm is not on PATH');
  const found = [path.join(path.dirname(npm), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'), path.join(path.dirname(npm), 'npm-cli.js')].find((c) => fs.existsSync(c));
  assert.ok(found, `npm-cli.js beside ${npm}`);
  return found;
}

/**
 * Each host as the tier drives it offline: its fake provider, the environment that points it
 * there, the arguments of one unattended prompt, the settings file `gate install` writes its
 * hook into and where the hook's command sits in it, and the gate's event name in the LOG.
 */
const HOSTS = [
  {
    name: 'claude-code',
    event: 'Claude Code Stop',
    provider: startAnthropic,
    // https://code.claude.com/docs/en/settings#environment-variables; -p runs one prompt.
    env: (url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'sk-ant-fake', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' }),
    args: ['-p', PROMPT, '--allowedTools', 'Write', 'Bash', '--output-format', 'json'],
    // https://code.claude.com/docs/en/hooks "Configuration": hooks.Stop[].hooks[].command.
    hook: (ws) => JSON.parse(fs.readFileSync(path.join(ws, '.claude', 'settings.json'), 'utf8')).hooks.Stop[0].hooks[0].command,
  },
  {
    name: 'gemini',
    event: 'Gemini CLI AfterAgent',
    provider: startGemini,
    env: (url) => ({ GEMINI_API_KEY: 'fake-key', GOOGLE_GEMINI_BASE_URL: url, GEMINI_CLI_TRUST_WORKSPACE: 'true' }),
    args: ['-p', PROMPT, '--yolo', '-m', 'gemini-2.5-flash'],
    // The API key sign-in, chosen once in the user's settings (docs/get-started/authentication.md).
    home: (home) => {
      fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
      fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
    },
    // Gemini CLI's settings hooks (https://geminicli.com/docs/hooks): hooks.AfterAgent[].hooks[].command.
    hook: (ws) => JSON.parse(fs.readFileSync(path.join(ws, '.gemini', 'settings.json'), 'utf8')).hooks.AfterAgent[0].hooks[0].command,
  },
];

describe('hosts: the command line installed from its package, then the gate from it, in a real host', function () {
  this.timeout(600_000);
  let tarball;

  before(function () {
    if (!fs.existsSync(path.join(repoRoot, 'dist', 'cli.js'))) throw new Error(`${path.join(repoRoot, 'dist', 'cli.js')} is missing: run \`node esbuild.mjs\` first`);
    const packs = tempDir('ideal-state-pack-');
    const packed = spawnSync(process.execPath, [npmCli(), 'pack', '--json', '--pack-destination', packs, '--cache', path.join(packs, 'cache')], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(packed.status, 0, `npm pack: ${packed.stderr}`);
    tarball = path.join(packs, JSON.parse(packed.stdout)[0].filename);
    assert.ok(fs.existsSync(tarball), tarball);
  });

  after(removeMade);

  for (const host of HOSTS.filter((h) => wantHost(h.name))) {
    it(`${host.name}: \`npm install -g\` of the tarball (offline), \`ideal-state gate install ${host.name} --yes\`, and the host's first "done" is blocked by that gate`, async function () {
      const installed = needHost(this, host.name);
      // A machine with this Node, git and the tarball: no ideal-state anywhere, an empty npm cache,
      // a registry that does not answer.
      const home = tempDir(`ideal-state-package-home-${host.name}-`);
      const prefix = path.join(home, 'prefix');
      const git = onPath('git') ?? '/usr/bin/git';
      const PATH = [path.join(prefix, 'bin'), path.dirname(process.execPath), path.dirname(git), '/usr/bin', '/bin'].join(path.delimiter);
      const stateDir = path.join(home, 'gate-state');
      const machine = { PATH, HOME: home, TMPDIR: os.tmpdir(), XDG_STATE_HOME: path.join(home, 'state'), XDG_DATA_HOME: path.join(home, 'data'), XDG_CACHE_HOME: path.join(home, 'cache'), IDEAL_STATE_STATE_DIR: stateDir };

      // The first line.
      const npmInstall = spawnSync(process.execPath, [npmCli(), 'install', '--global', '--prefix', prefix, '--offline', '--registry', 'http://127.0.0.1:9/', '--cache', path.join(home, 'npm-cache'), '--no-audit', '--no-fund', tarball], { env: machine, encoding: 'utf8' });
      assert.equal(npmInstall.status, 0, `npm install -g of the tarball: ${npmInstall.stdout}${npmInstall.stderr}`);
      const version = spawnSync('ideal-state', ['--version'], { env: machine, encoding: 'utf8' });
      assert.equal(version.stdout.trim(), VERSION, `ideal-state --version from the prefix: ${version.stderr}${version.error?.message ?? ''}`);

      // The project: a git repository with a PRD whose CRITICAL criterion fails.
      const ws = path.join(home, 'project');
      fs.mkdirSync(path.join(ws, path.dirname(PRD_PATH)), { recursive: true });
      fs.writeFileSync(path.join(ws, PRD_PATH), PRD);
      assert.equal(spawnSync('git', ['init', '-q'], { cwd: ws, env: machine }).status, 0, 'git init');

      // The second line, with the installed command line.
      const gateInstall = spawnSync('ideal-state', ['gate', 'install', host.name, '--yes'], { cwd: ws, env: machine, encoding: 'utf8' });
      assert.equal(gateInstall.status, 0, `ideal-state gate install ${host.name} --yes: ${gateInstall.stdout}${gateInstall.stderr}`);
      const installedCli = fs.realpathSync(path.join(prefix, 'lib', 'node_modules', 'ideal-state', 'dist', 'cli.js'));
      const hook = host.hook(ws);
      assert.ok(hook.includes(installedCli), `the hook runs the package's cli.js (${installedCli}), not this repository's: ${hook}`);
      assert.ok(!hook.includes(repoRoot), `the hook names a file of this repository: ${hook}`);

      const script = new ModelScript({ file: path.join(ws, 'CHANGELOG.md') });
      const server = await host.provider(script);
      const hostHome = path.join(home, 'host-home');
      fs.mkdirSync(hostHome);
      host.home?.(hostHome);
      let result;
      try {
        result = await run(installed.bin, host.args, { cwd: ws, env: { ...machine, HOME: hostHome, ...host.env(server.url) } });
      } finally {
        await server.stop();
      }
      const prd = fs.readFileSync(path.join(ws, PRD_PATH), 'utf8');
      const log = `${host.name} ${installed.version} exited ${result.code ?? result.signal}\nstdout: ${result.stdout.slice(-1500)}\nstderr: ${result.stderr.slice(-2500)}\nmodel turns: ${JSON.stringify(script.turns)}\nproblems: ${script.problems.join('; ')}\nPRD:\n${prd}`;
      assertNoContractBreaks(server, script, log);

      const stops = script.turns.filter((t) => t.move === 'stop');
      assert.ok(stops.length >= 1, `the model was never asked for an agent turn\n${log}`);
      assert.equal(stops[0].sawReason, false, `the first request already held a block reason\n${log}`);
      const fix = script.turns.find((t) => t.move === 'tool');
      assert.ok(fix, `the block reason ("${REASON_MARK}") never reached the model: the first "done" was not blocked\n${log}`);
      assert.equal(fix.sawReason, true, log);
      assert.ok(fs.existsSync(path.join(ws, 'CHANGELOG.md')), `the host did not run the model's ${fix.tool} call\n${log}`);
      assert.equal(stops.length, 2, `the model stopped ${stops.length} times, not twice (once blocked, once let through)\n${log}`);
      // The block reason the model read came from the package's gate: it names the installed
      // command line (how to say "blocked" or look again), never this repository's.
      const asked = server.received.map((r) => JSON.stringify(r.body)).filter((b) => b.includes(REASON_MARK));
      assert.ok(asked.length > 0, `no request held the block reason\n${log}`);
      assert.ok(asked.some((b) => b.includes(installedCli)), `the block reason does not name the installed cli.js ${installedCli}\n${asked.at(-1)?.slice(0, 3000)}`);
      assert.ok(asked.every((b) => !b.includes(path.join(repoRoot, 'dist'))), `a block reason names this repository's dist/\n${log}`);
      // The gate's verdict in the PRD's LOG, one per session.
      const verdicts = [...prd.matchAll(/^- Work: Verified .* with ideal-state gate \(([^)]*)\), which (.*?): /gm)].map((m) => `${m[1]}: ${m[2]}`);
      assert.equal(verdicts.length, 1, `the PRD's LOG has ${verdicts.length} gate verdicts, not the session's one\n${log}`);
      assert.match(verdicts[0], new RegExp(`^${host.event}, session [0-9a-f]{8}: let the stop through;`), log);
      assert.equal(result.code, 0, log);
    });
  }
});
