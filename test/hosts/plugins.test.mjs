// Each host's own package of the done gate (scripts/build-plugins.mjs), loaded by the host's
// real program the way a person loads it, with no `gate install` and nothing in the project's
// settings: the plugin's own hooks block the model's first "done" while the PRD's CRITICAL
// criterion fails, the reason reaches the model, and the stop after the fix is let through.
// Driven offline by the fake provider of the hosts tier (hosts.test.mjs), which holds its API's
// contract. A host whose program cannot be installed is "not run", with why.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../harness/paths.mjs';
import { startAnthropic } from './fake-anthropic.mjs';
import { startGemini } from './fake-gemini.mjs';
import { startOpenAi } from './fake-openai.mjs';
import { assertNoContractBreaks } from './http.mjs';
import { McpScript, ModelScript, REASON_MARK } from './script.mjs';
import { needHost, removeMade, run, tempDir, wantHost } from './tier.mjs';

const PRD = ['---', 'prd: true', 'id: PRD-20261128-plugin', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# Plugin', '', '## Ideal State Criteria', '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md', '', '## LOG', ''].join('\n');

const PROMPT = 'Finish the task in this folder.';
const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`;
/** Claude Code offline, its home a folder of the test's (https://code.claude.com/docs/en/settings#environment-variables). */
const claudeEnv = (home) => ({ PATH, HOME: home, TMPDIR: os.tmpdir(), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' });
/** Gemini CLI offline, as the hosts tier drives it: the API key sign-in chosen in the user's settings (docs/get-started/authentication.md). */
const geminiEnv = (home) => {
  fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
  if (!fs.existsSync(path.join(home, '.gemini', 'settings.json'))) fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
  return { PATH, HOME: home, TMPDIR: os.tmpdir(), GEMINI_CLI_TRUST_WORKSPACE: 'true' };
};
const CLAUDE = {
  name: 'claude-code',
  event: 'Claude Code Stop',
  provider: startAnthropic,
  env: (home, url) => ({ ...claudeEnv(home), ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'sk-ant-fake', ENABLE_TOOL_SEARCH: 'false' }),
  args: ['-p', PROMPT, '--allowedTools', 'Write', 'Bash', '--output-format', 'json'],
};
const GEMINI = {
  name: 'gemini',
  event: 'Gemini CLI AfterAgent',
  provider: startGemini,
  env: (home, url) => ({ ...geminiEnv(home), GEMINI_API_KEY: 'fake-key', GOOGLE_GEMINI_BASE_URL: url }),
  args: ['-p', PROMPT, '--yolo', '-m', 'gemini-2.5-flash'],
};

/** Copilot CLI offline on its own provider settings, as the hosts tier drives it (COPILOT_PROVIDER_* in its cli-main.js). */
const COPILOT = {
  name: 'copilot',
  event: 'Copilot CLI agentStop',
  provider: startOpenAi,
  env: (home, url) => ({ PATH, HOME: home, TMPDIR: os.tmpdir(), COPILOT_OFFLINE: '1', COPILOT_PROVIDER_TYPE: 'openai', COPILOT_PROVIDER_BASE_URL: `${url}/v1`, COPILOT_PROVIDER_API_KEY: 'sk-fake', COPILOT_MODEL: 'gpt-fake', COPILOT_AUTO_UPDATE: 'false', COPILOT_ALLOW_ALL: 'true' }),
  // --allow-all-paths: the gate's block reason names the plugin's dist/cli.js, outside the folder (see hosts.test.mjs).
  args: ['-p', PROMPT, '--allow-all-tools', '--allow-all-paths'],
};

/** Codex pointed at the fake OpenAI Responses server, as the hosts tier drives it. */
const CODEX = {
  name: 'codex',
  event: 'Codex Stop',
  provider: startOpenAi,
  env: (home) => ({ PATH, HOME: home, TMPDIR: os.tmpdir(), FAKE_OPENAI_KEY: 'sk-fake' }),
  // `--trust` is the project trust; `--dangerously-bypass-hook-trust` stands for the person who
  // trusts the plugin's new hook in `codex` → /hooks, which an unattended run cannot do.
  args: ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--trust', '--dangerously-bypass-hook-trust'],
  model: (url) => ['-c', 'model_provider="fake"', '-c', 'model="gpt-fake"', '-c', `model_providers.fake={ name = "fake", base_url = "${url}/v1", wire_api = "responses", env_key = "FAKE_OPENAI_KEY" }`, PROMPT],
};

describe('hosts: each host’s own package of the gate, loaded by the real program', function () {
  this.timeout(600_000);
  let plugins;

  before(() => {
    plugins = tempDir('ideal-state-plugins-');
    const built = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'build-plugins.mjs'), '--out', plugins], { encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
  });

  after(removeMade);

  it('the Claude Code plugin, its marketplace file, the Gemini CLI extension, the Copilot CLI and Codex plugins carry the package’s version and a command line that runs', () => {
    const market = JSON.parse(fs.readFileSync(path.join(plugins, 'claude-code', '.claude-plugin', 'marketplace.json'), 'utf8'));
    assert.equal(market.name, 'ideal-state');
    assert.equal(market.owner.name.length > 0, true);
    const entry = market.plugins.find((p) => p.name === 'ideal-state');
    const plugin = path.join(plugins, 'claude-code', entry.source);
    const manifest = JSON.parse(fs.readFileSync(path.join(plugin, '.claude-plugin', 'plugin.json'), 'utf8'));
    assert.equal(manifest.version, JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version, 'one version for the package and the plugin');
    // The bundled command line runs from the plugin's own folder, with nothing else installed.
    const version = spawnSync(process.execPath, [path.join(plugin, 'dist', 'cli.js'), '--version'], { encoding: 'utf8', cwd: os.tmpdir() });
    assert.equal(version.stdout.trim(), manifest.version, version.stderr);
    const extension = JSON.parse(fs.readFileSync(path.join(plugins, 'gemini', 'ideal-state', 'gemini-extension.json'), 'utf8'));
    assert.equal(extension.version, manifest.version, 'one version for the plugin and the Gemini CLI extension');
    const copilotPlugin = JSON.parse(fs.readFileSync(path.join(plugins, 'copilot', 'ideal-state', 'plugin.json'), 'utf8'));
    assert.equal(copilotPlugin.version, manifest.version, 'one version for the plugins');
    const codexPlugin = JSON.parse(fs.readFileSync(path.join(plugins, 'codex', 'ideal-state', '.codex-plugin', 'plugin.json'), 'utf8'));
    assert.equal(codexPlugin.version, manifest.version, 'one version for the plugins');
  });

  /**
   * One session of the real Claude Code in a fresh project with nothing installed into it: the
   * model says "done", and only the plugin's hooks can send it back.
   */
  async function heldSession(context, { home, extraArgs, host = CLAUDE }) {
    const installed = needHost(context, host.name);
    const dir = tempDir('ideal-state-plugin-claude-');
    fs.mkdirSync(path.join(dir, '.ideal-state', 'prds'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.ideal-state', 'prds', 'PRD-20261128-plugin.md'), PRD);
    spawnSync('git', ['init', '-q'], { cwd: dir });
    const script = new ModelScript({ file: path.join(dir, 'CHANGELOG.md') });
    const server = await host.provider(script);
    // The Node that runs the package's `node` is the first on the PATH the host gives its hooks.
    const env = { ...host.env(home, server.url), IDEAL_STATE_STATE_DIR: tempDir('ideal-state-plugin-state-') };
    let result;
    try {
      result = await run(installed.bin, [...extraArgs, ...host.args, ...(host.model?.(server.url) ?? [])], { cwd: dir, env });
    } finally {
      await server.stop();
    }
    const log = `${host.name} exited ${result.code ?? result.signal}\nstdout: ${result.stdout.slice(-1500)}\nstderr: ${result.stderr.slice(-2500)}\nmodel turns: ${JSON.stringify(script.turns)}\nproblems: ${script.problems.join('; ')}`;
    assertNoContractBreaks(server, script, log);
    for (const folder of ['.claude', '.gemini', '.github', '.codex']) assert.equal(fs.existsSync(path.join(dir, folder)), false, `nothing was installed into the project\n${log}`);
    const stops = script.turns.filter((t) => t.move === 'stop');
    assert.ok(stops.length >= 1, `the model was never asked for an agent turn\n${log}`);
    assert.equal(stops[0].sawReason, false, log);
    const fix = script.turns.find((t) => t.move === 'tool');
    assert.ok(fix, `the block reason ("${REASON_MARK}") never reached the model: the plugin's Stop hook did not block\n${log}`);
    assert.equal(fix.sawReason, true);
    assert.ok(fs.existsSync(path.join(dir, 'CHANGELOG.md')), log);
    assert.equal(stops.length, 2, `the model stopped ${stops.length} times, not twice (once blocked, once let through)\n${log}`);
    const prd = fs.readFileSync(path.join(dir, '.ideal-state', 'prds', 'PRD-20261128-plugin.md'), 'utf8');
    assert.match(prd, new RegExp(`^- Work: Verified .* with ideal-state gate \\(${host.event}, [^)]*\\), which let the stop through`, 'm'), `the gate's verdict in the PRD's LOG\n${prd}\n${log}`);
    assert.equal(result.code, 0, log);
  }


  if (wantHost('claude-code')) {
    it('claude-code: `claude plugin validate` passes the plugin and its marketplace', function () {
      const installed = needHost(this, 'claude-code');
      for (const dir of [path.join(plugins, 'claude-code', 'ideal-state'), path.join(plugins, 'claude-code')]) {
        const r = spawnSync(installed.bin, ['plugin', 'validate', dir], { encoding: 'utf8', env: claudeEnv(tempDir('ideal-state-plugin-home-')), timeout: 60_000 });
        assert.equal(r.status, 0, `${dir}: ${r.stdout}${r.stderr}`);
        assert.match(r.stdout + r.stderr, /Validation passed/);
      }
    });

    it('claude-code: `claude --plugin-dir` with the built plugin blocks the first "done", the reason reaches the model, the stop after the fix is let through', async function () {
      await heldSession(this, { home: tempDir('ideal-state-plugin-home-'), extraArgs: ['--plugin-dir', path.join(plugins, 'claude-code', 'ideal-state')] });
    });

    it('claude-code: installed from the marketplace file (`claude plugin marketplace add`, `claude plugin install`), the plugin holds every project', async function () {
      const installed = needHost(this, 'claude-code');
      const home = tempDir('ideal-state-plugin-home-');
      for (const args of [['plugin', 'marketplace', 'add', path.join(plugins, 'claude-code')], ['plugin', 'install', 'ideal-state@ideal-state']]) {
        const r = spawnSync(installed.bin, args, { encoding: 'utf8', env: claudeEnv(home), timeout: 60_000 });
        assert.equal(r.status, 0, `claude ${args.join(' ')}: ${r.stdout}${r.stderr}`);
      }
      await heldSession(this, { home, extraArgs: [] });
    });
  }

  if (wantHost('gemini')) {
    it('gemini: the built extension, installed with `gemini extensions install`, blocks the first "done", the reason reaches the model, the stop after the fix is let through', async function () {
      const installed = needHost(this, 'gemini');
      const home = tempDir('ideal-state-plugin-home-');
      const r = spawnSync(installed.bin, ['extensions', 'install', path.join(plugins, 'gemini', 'ideal-state'), '--consent'], { encoding: 'utf8', env: geminiEnv(home), timeout: 120_000 });
      assert.equal(r.status, 0, `gemini extensions install: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout + r.stderr, /Extension "ideal-state" installed successfully and enabled/);
      await heldSession(this, { home, extraArgs: [], host: GEMINI });
    });
  }

  if (wantHost('copilot')) {
    it('copilot: `copilot --plugin-dir` with the built plugin blocks the first "done", the reason reaches the model, the stop after the fix is let through', async function () {
      await heldSession(this, { home: tempDir('ideal-state-plugin-home-'), extraArgs: ['--plugin-dir', path.join(plugins, 'copilot', 'ideal-state')], host: COPILOT });
    });
  }

  if (wantHost('codex')) {
    it('codex: installed from the marketplace file (`codex plugin marketplace add`, `codex plugin add`), the plugin blocks the first "done", the stop after the fix is let through', async function () {
      const installed = needHost(this, 'codex');
      const home = tempDir('ideal-state-plugin-home-');
      for (const args of [['plugin', 'marketplace', 'add', path.join(plugins, 'codex')], ['plugin', 'add', 'ideal-state@ideal-state']]) {
        const r = spawnSync(installed.bin, args, { encoding: 'utf8', env: { PATH, HOME: home }, timeout: 60_000 });
        assert.equal(r.status, 0, `codex ${args.join(' ')}: ${r.stdout}${r.stderr}`);
      }
      await heldSession(this, { home, extraArgs: [], host: CODEX });
    });
  }

  /**
   * The package's MCP server as the host starts it: the model's request offers the server's
   * verify tool, the model calls it, and the answer holds the verifier's evidence (which no
   * request held before the call). The workspace passes, so the gate lets the one stop through.
   */
  async function mcpThroughPackage(context, host, { home, extraArgs, args }) {
    const installed = needHost(context, host.name);
    const dir = tempDir('ideal-state-plugin-mcp-');
    fs.mkdirSync(path.join(dir, '.ideal-state', 'prds'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.ideal-state', 'prds', 'PRD-20261128-plugin.md'), PRD);
    fs.writeFileSync(path.join(dir, 'CHANGELOG.md'), '# Changelog\n');
    spawnSync('git', ['init', '-q'], { cwd: dir });
    const script = new McpScript({ tool: /ideal.state.*verify$/i, input: { prd: '.ideal-state/prds/PRD-20261128-plugin.md' } });
    const server = await host.provider(script);
    let result;
    try {
      result = await run(installed.bin, [...extraArgs, ...args, ...(host.model?.(server.url) ?? [])], { cwd: dir, env: { ...host.env(home, server.url), IDEAL_STATE_STATE_DIR: tempDir('ideal-state-plugin-state-') } });
    } finally {
      await server.stop();
    }
    const log = `${host.name} exited ${result.code ?? result.signal}\nstdout: ${result.stdout.slice(-1500)}\nstderr: ${result.stderr.slice(-2500)}\nturns: ${JSON.stringify(script.turns)}\ntools: ${JSON.stringify(script.toolLists.map((l) => l.filter((n) => /ideal.?state/i.test(n))))}`;
    assertNoContractBreaks(server, script, log);
    assert.ok(script.called, `the package's MCP verify tool is in none of the model's requests\n${log}`);
    assert.equal(script.offered, 'declared', log);
    assert.doesNotMatch(script.before, /CHANGELOG\.md exists/, log);
    assert.match(script.answer ?? '', /CHANGELOG\.md exists/, `the verify answer lacks the verifier's evidence\n${log}`);
  }

  if (wantHost('claude-code')) {
    it('claude-code: the plugin’s MCP server answers the model’s verify call with the verifier’s evidence', async function () {
      await mcpThroughPackage(this, CLAUDE, {
        home: tempDir('ideal-state-plugin-home-'),
        extraArgs: ['--plugin-dir', path.join(plugins, 'claude-code', 'ideal-state')],
        // The tools listed at once rather than deferred behind ToolSearch, as in hosts.test.mjs; the plugin's tools allowed.
        args: ['-p', PROMPT, '--allowedTools', 'mcp__plugin_ideal-state_criteria__ideal-state_verify', '--output-format', 'json'],
      });
    });
  }

  if (wantHost('gemini')) {
    it('gemini: the extension’s MCP server answers the model’s verify call with the verifier’s evidence', async function () {
      const installed = needHost(this, 'gemini');
      const home = tempDir('ideal-state-plugin-home-');
      const r = spawnSync(installed.bin, ['extensions', 'install', path.join(plugins, 'gemini', 'ideal-state'), '--consent'], { encoding: 'utf8', env: geminiEnv(home), timeout: 120_000 });
      assert.equal(r.status, 0, `gemini extensions install: ${r.stdout}${r.stderr}`);
      await mcpThroughPackage(this, GEMINI, { home, extraArgs: [], args: GEMINI.args });
    });
  }
});
