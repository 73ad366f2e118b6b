// The hosts tier: each agent host's real program, installed from npm (install.mjs), driven
// offline by a fake model server that holds its provider's contract (fake-*.mjs), with the
// hook that `ideal-state gate install <host>` writes. For each host: the hook runs, the
// model's first "done" is blocked, the gate's reason reaches the model's next request, the
// model creates the missing file, and its second "done" is let through. A host whose program
// cannot be installed or started is skipped as "not run", with why: never counted as passed.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../harness/paths.mjs';
import { startAnthropic } from './fake-anthropic.mjs';
import { startGemini } from './fake-gemini.mjs';
import { startOpenAi } from './fake-openai.mjs';
import { ensureHost, hostsCache } from './install.mjs';
import { ModelScript, REASON_MARK } from './script.mjs';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const LAUNCHER = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)}`;
const PROMPT = 'Finish the task in this folder.';
const PRD = [
  '---',
  'prd: true',
  'id: PRD-20261126-hosts',
  'status: IN_PROGRESS',
  'effort_level: INSTANT',
  '---',
  '',
  '# Hosts tier',
  '',
  '## Problem Space',
  'The agent must write a changelog before it may say it is done.',
  '',
  '## Ideal State Criteria',
  '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md',
  '',
  '## LOG',
  '',
].join('\n');

/**
 * How each host is driven offline: which fake provider, the environment and arguments that
 * point it there and let its agent write files without a person, and the gate host name.
 */
const HOSTS = [
  {
    name: 'claude-code',
    gate: 'claude-code',
    provider: startAnthropic,
    // https://code.claude.com/docs/en/settings#environment-variables; -p runs one prompt.
    env: (url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'sk-ant-fake', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' }),
    args: () => ['-p', PROMPT, '--allowedTools', 'Write', '--output-format', 'json'],
  },
  {
    name: 'codex',
    gate: 'codex',
    provider: startOpenAi,
    env: () => ({ FAKE_OPENAI_KEY: 'sk-fake' }),
    // `--trust` is Codex's project trust (project config, .codex/hooks.json included, is read
    // only in a trusted project); `--dangerously-bypass-hook-trust` stands for the person who
    // trusts the new hook in `codex` → /hooks, which an unattended run cannot do.
    args: (url) => ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--trust', '--dangerously-bypass-hook-trust', '-c', 'model_provider="fake"', '-c', 'model="gpt-fake"', '-c', `model_providers.fake={ name = "fake", base_url = "${url}/v1", wire_api = "responses", env_key = "FAKE_OPENAI_KEY" }`, PROMPT],
  },
  {
    name: 'gemini',
    gate: 'gemini',
    provider: startGemini,
    env: (url) => ({ GEMINI_API_KEY: 'fake-key', GOOGLE_GEMINI_BASE_URL: url, GEMINI_CLI_TRUST_WORKSPACE: 'true' }),
    args: () => ['-p', PROMPT, '--yolo', '-m', 'gemini-2.5-flash'],
    // The API key sign-in, chosen once in the user's settings (docs/get-started/authentication.md).
    home: (home) => writeJson(path.join(home, '.gemini', 'settings.json'), { security: { auth: { selectedType: 'gemini-api-key' } } }),
  },
  {
    name: 'qwen',
    gate: 'qwen',
    provider: startOpenAi,
    env: (url) => ({ OPENAI_API_KEY: 'sk-fake', OPENAI_BASE_URL: `${url}/v1`, OPENAI_MODEL: 'gpt-fake' }),
    args: () => ['-p', PROMPT, '--yolo', '--auth-type', 'openai'],
  },
  {
    name: 'copilot',
    gate: 'copilot',
    provider: startOpenAi,
    // Copilot CLI's own model provider settings (COPILOT_PROVIDER_* in its cli-main.js), offline.
    env: (url) => ({ COPILOT_OFFLINE: '1', COPILOT_PROVIDER_TYPE: 'openai', COPILOT_PROVIDER_BASE_URL: `${url}/v1`, COPILOT_PROVIDER_API_KEY: 'sk-fake', COPILOT_MODEL: 'gpt-fake', COPILOT_AUTO_UPDATE: 'false', COPILOT_ALLOW_ALL: 'true' }),
    args: () => ['-p', PROMPT, '--allow-all-tools'],
  },
];

function run(command, args, options) {
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

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function workspace(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ideal-state-host-${name}-`));
  fs.mkdirSync(path.join(dir, '.ideal-state', 'prds'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.ideal-state', 'prds', 'PRD-20261126-hosts.md'), PRD);
  fs.writeFileSync(path.join(dir, 'README.md'), '# A project\n');
  spawnSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}

/** The LOG's verdict lines, oldest first. */
function verdicts(dir) {
  const text = fs.readFileSync(path.join(dir, '.ideal-state', 'prds', 'PRD-20261126-hosts.md'), 'utf8');
  return [...text.matchAll(/^- Work: Verified .* with ideal-state gate \(([^)]*)\), which (.*?): /gm)].map((m) => `${m[1]}: ${m[2]}`);
}

describe('hosts: the real agent programs, held by the installed gate', function () {
  this.timeout(600_000);

  const only = process.env.IDEAL_STATE_HOSTS?.split(',');
  for (const host of HOSTS.filter((h) => !only || only.includes(h.name))) {
    it(`${host.name}: the installed hook blocks the first "done", the reason reaches the model, the stop after the fix is let through`, async function () {
      const installed = ensureHost(host.name);
      if (!installed.ok) {
        console.log(`      [hosts] ${host.name}: not run: ${installed.why}`);
        this.skip();
      }
      const dir = workspace(host.name);
      const install = spawnSync(process.execPath, [CLI, 'gate', 'install', host.gate, '--yes', '--workspace', dir, '--command', LAUNCHER], { encoding: 'utf8' });
      assert.equal(install.status, 0, `gate install ${host.gate}: ${install.stderr}${install.stdout}`);

      const script = new ModelScript({ file: path.join(dir, 'CHANGELOG.md') });
      const server = await host.provider(script);
      const home = fs.mkdtempSync(path.join(os.tmpdir(), `ideal-state-host-home-${host.name}-`));
      host.home?.(home);
      try {
        const result = await run(installed.bin, host.args(server.url), { cwd: dir, env: { PATH: process.env.PATH, HOME: home, TMPDIR: os.tmpdir(), ...host.env(server.url) } });
        const log = `${host.name} ${installed.version} exited ${result.code ?? result.signal}\nstdout: ${result.stdout.slice(-1500)}\nstderr: ${result.stderr.slice(-2500)}\nmodel turns: ${JSON.stringify(script.turns)}\nproblems: ${script.problems.join('; ')}\nrefused: ${JSON.stringify(server.refused)}\nLOG: ${verdicts(dir).join(' | ')}`;
        fs.mkdirSync(path.join(hostsCache, 'logs'), { recursive: true });
        fs.writeFileSync(path.join(hostsCache, 'logs', `${host.name}.log`), log);

        const stops = script.turns.filter((t) => t.move === 'stop');
        assert.ok(stops.length >= 1, `the model was never asked for an agent turn\n${log}`);
        assert.equal(stops[0].sawReason, false, `the first request already held a block reason\n${log}`);
        const fix = script.turns.find((t) => t.move === 'tool');
        assert.ok(fix, `the block reason ("${REASON_MARK}") never reached the model: the stop was not blocked\n${log}`);
        assert.equal(fix.sawReason, true);
        assert.ok(fs.existsSync(path.join(dir, 'CHANGELOG.md')), `the host did not run the model's ${fix.tool} call\n${log}`);
        assert.equal(stops.length, 2, `the model stopped ${stops.length} times, not twice (once blocked, once let through)\n${log}`);
        const lines = verdicts(dir);
        assert.equal(lines.length, 2, `the PRD's LOG has ${lines.length} gate verdicts\n${log}`);
        assert.match(lines[0], /blocked the stop \(1 of 3\)/, log);
        assert.match(lines[1], /let the stop through;/, log);
        assert.equal(result.code, 0, log);
      } finally {
        await server.stop();
      }
    });
  }
});
