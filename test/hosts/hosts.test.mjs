// The hosts tier: each agent host's real program, installed from npm (install.mjs), driven
// offline by a fake model server that holds its provider's contract (fake-*.mjs), with the
// hook that `ideal-state gate install <host>` writes. For each host: the hook runs, the
// model's first "done" is blocked, the gate's reason reaches the model's next request, the
// model creates the missing file, and its second "done" is let through; and the MCP server
// gate install configured reaches the model, whose verify call is answered with the PRD's
// outcomes; and, with the gate installed with `--max-blocks 1` under a model that never does
// the work, that the stop is let through and the gate's warning reaches the user where that host
// shows it (or, measured, that it shows none). A host whose program cannot be installed or
// started is skipped as "not run", with why: never counted as passed, and the run fails.
// Every request a fake refuses by its provider's rules fails the test whose host sent it.
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
import { hostsCache } from './install.mjs';
import { lockAsAPerson, removeLockBundle } from './lock.mjs';
import { serveOpencode } from './opencode-serve.mjs';
import { haveTerminal, runInTerminal } from './terminal.mjs';
import { BlockedScript, CheatScript, McpScript, ModelScript, REASON_MARK, shellWrite, StubbornScript } from './script.mjs';
import { DEMO_PRD, demoWorkspace, needHost, removeMade, run, SAMPLE, tempDir, wantHost, writeJson } from './tier.mjs';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const LAUNCHER = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)}`;
const PROMPT = 'Finish the task in this folder.';
/** What the person asks the host's agent; a test may ask something else (the sample workspace's README example). */
let prompt = PROMPT;
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

/** The MCP test's PRD: one criterion the workspace fails (ISC-1) and one it passes (ISC-2). */
const MCP_PRD = PRD.replace('\n\n## LOG', '\n- [ ] ISC-2: The workspace has a README.md | Verify: Read: README.md\n\n## LOG');
/** The server's verify tool (`ideal-state_verify` in src/mcp/server.ts), under whatever prefix and separators the host adds. */
const MCP_VERIFY = /ideal.state.*verify$/i;
/** The note the gate gives when it lets the agent stop after --max-blocks (src/app/gate/verdict.ts). */
const WARNING = /may stop now, with this not done\./;

/** A tool result as the host embedded it in its request, its JSON string escapes (one level or more) undone. */
function unescape(text) {
  let out = text;
  for (let i = 0; i < 4; i++) {
    const next = out.replace(/\\(["\\/])/g, '$1').replace(/\\[nrt]/g, ' ');
    if (next === out) break;
    out = next;
  }
  return out;
}

/** The verify results in a request: [id, priority, outcome, evidence] per criterion, in order, each id once. */
function outcomes(text) {
  const found = new Map();
  for (const m of unescape(text ?? '').matchAll(/"id"\s*:\s*"(ISC-\d+)"\s*,\s*"priority"\s*:\s*"(\w+)"\s*,\s*"outcome"\s*:\s*"(\w+)"\s*,\s*"evidence"\s*:\s*"([^"]*)"/g)) {
    if (!found.has(m[1])) found.set(m[1], [m[1], m[2], m[3], m[4]]);
  }
  return [...found.values()];
}

/** Codex pointed at the fake OpenAI Responses server. */
const codexModel = (url) => ['-c', 'model_provider="fake"', '-c', 'model="gpt-fake"', '-c', `model_providers.fake={ name = "fake", base_url = "${url}/v1", wire_api = "responses", env_key = "FAKE_OPENAI_KEY" }`];

/** The lines of a JSONL output that parse, as objects. */
function jsonLines(text) {
  return text.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
}

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
    args: () => ['-p', prompt, '--allowedTools', 'Write', 'Bash', '--output-format', 'json'],
    mcp: {
      // The person's approval of the project's servers (enabledMcpjsonServers in
      // .claude/settings.local.json, https://code.claude.com/docs/en/settings), the tool allowed,
      // and the tools listed at once rather than deferred behind ToolSearch.
      prepare: (dir) => writeJson(path.join(dir, '.claude', 'settings.local.json'), { enabledMcpjsonServers: ['ideal-state'] }),
      args: () => ['-p', prompt, '--allowedTools', 'mcp__ideal-state__ideal-state_verify', '--output-format', 'json'],
      env: () => ({ ENABLE_TOOL_SEARCH: 'false' }),
    },
    // `-p --output-format stream-json --verbose`: the session's messages as the transcript holds them;
    // a hook's systemMessage is a `system` message ("Stop says: …").
    warning: {
      where: 'a system message of its stream-json transcript',
      args: () => ['-p', prompt, '--output-format', 'stream-json', '--verbose'],
      shown: (r) => jsonLines(r.stdout).filter((e) => e.type === 'system').map((e) => e.content ?? '').join('\n'),
    },
  },
  {
    name: 'codex',
    gate: 'codex',
    provider: startOpenAi,
    env: () => ({ FAKE_OPENAI_KEY: 'sk-fake' }),
    // `--trust` is Codex's project trust (project config, .codex/hooks.json included, is read
    // only in a trusted project); `--dangerously-bypass-hook-trust` stands for the person who
    // trusts the new hook in `codex` → /hooks, which an unattended run cannot do.
    mcp: {},
    args: (url) => ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--trust', '--dangerously-bypass-hook-trust', ...codexModel(url), prompt],
    // `codex exec` (text or --json) prints only "hook: Stop Completed": the hook's systemMessage
    // is shown by Codex's interactive TUI ("↳ Hook · …"), run here in a terminal of its own, the
    // folder trusted as a person does it (its "Trust and continue" answered).
    warning: {
      where: 'its interactive screen (the TUI, in a terminal)',
      cannot: () => (haveTerminal() ? undefined : 'no `script` (util-linux) to give Codex a terminal'),
      drive: (bin, { cwd, env, settled, url }) => runInTerminal(bin, ['--no-alt-screen', '--dangerously-bypass-approvals-and-sandbox', '--dangerously-bypass-hook-trust', ...codexModel(url), prompt], { cwd, env, settled, answers: [{ when: /Trust this folder\?.*Trust and continue/, keys: '\r' }] }),
      shown: (r) => r.screen,
    },
  },
  {
    name: 'gemini',
    gate: 'gemini',
    provider: startGemini,
    env: (url) => ({ GEMINI_API_KEY: 'fake-key', GOOGLE_GEMINI_BASE_URL: url, GEMINI_CLI_TRUST_WORKSPACE: 'true' }),
    mcp: {},
    args: () => ['-p', prompt, '--yolo', '-m', 'gemini-2.5-flash'],
    warning: { where: 'stderr', shown: (r) => r.stderr },
    // The API key sign-in, chosen once in the user's settings (docs/get-started/authentication.md).
    home: (home) => writeJson(path.join(home, '.gemini', 'settings.json'), { security: { auth: { selectedType: 'gemini-api-key' } } }),
  },
  {
    name: 'qwen',
    gate: 'qwen',
    provider: startOpenAi,
    env: (url) => ({ OPENAI_API_KEY: 'sk-fake', OPENAI_BASE_URL: `${url}/v1`, OPENAI_MODEL: 'gpt-fake' }),
    // Qwen Code defers MCP tools: named in a reminder, reached through its tool_search/tool_call bridge.
    mcp: { offered: 'deferred' },
    args: () => ['-p', prompt, '--yolo', '--auth-type', 'openai'],
    warning: { where: 'stderr', shown: (r) => r.stderr },
  },
  {
    name: 'copilot',
    gate: 'copilot',
    provider: startOpenAi,
    // Copilot CLI's own model provider settings (COPILOT_PROVIDER_* in its cli-main.js), offline.
    env: (url) => ({ COPILOT_OFFLINE: '1', COPILOT_PROVIDER_TYPE: 'openai', COPILOT_PROVIDER_BASE_URL: `${url}/v1`, COPILOT_PROVIDER_API_KEY: 'sk-fake', COPILOT_MODEL: 'gpt-fake', COPILOT_AUTO_UPDATE: 'false', COPILOT_ALLOW_ALL: 'true' }),
    mcp: {},
    // --allow-all-paths: the gate's own command line (`gate blocked` names dist/cli.js) is outside
    // the folder, and Copilot CLI refuses a shell command naming such a path when no one can
    // approve it (--add-dir of that folder was not enough, 1.0.102); interactively the person approves it.
    args: () => ['-p', prompt, '--allow-all-tools', '--allow-all-paths'],
    // Copilot CLI 1.0.102 keeps only `decision`/`reason` of an agentStop answer (its session file
    // records the hook's output as {}), and its screen draws no hook events: the note is shown nowhere.
    warning: {
      where: 'its output, and its session file (the answer it kept)',
      none: true,
      shown: (r) => `${r.stdout}\n${r.stderr}`,
      dropped: (home) => {
        const sessions = path.join(home, '.copilot', 'session-state');
        const ends = fs.readdirSync(sessions).flatMap((id) => (fs.existsSync(path.join(sessions, id, 'events.jsonl')) ? jsonLines(fs.readFileSync(path.join(sessions, id, 'events.jsonl'), 'utf8')) : []))
          .filter((e) => e.type === 'hook.end' && e.data?.hookType === 'agentStop');
        return ends.at(-1);
      },
    },
  },
  {
    name: 'opencode',
    gate: 'opencode',
    provider: startOpenAi,
    // https://opencode.ai/docs/providers#custom-provider: an OpenAI-compatible provider in the
    // project's opencode.json (beside the `mcp` entry gate install wrote), its model chosen;
    // https://opencode.ai/docs/permissions: edits and shell allowed without asking.
    workspace: (dir, url) => {
      const file = path.join(dir, 'opencode.json');
      const config = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
      writeJson(file, { ...config, model: 'fake/gpt-fake', provider: { fake: { npm: '@ai-sdk/openai-compatible', name: 'Fake', options: { baseURL: `${url}/v1`, apiKey: 'sk-fake' }, models: { 'gpt-fake': { name: 'gpt-fake', tool_call: true } } } }, permission: { edit: 'allow', bash: 'allow' } });
    },
    env: () => ({ OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1', OPENCODE_DISABLE_SHARE: '1' }),
    // `opencode run` exits at the first idle: the server is what holds a session (opencode-serve.mjs).
    mcp: {},
    // The plugin's `client.tui.showToast`: under `opencode serve` the toast is a `tui.toast.show` bus event, which the TUI draws.
    warning: { where: 'a TUI toast (tui.toast.show on the server event stream)', shown: (r) => (r.events ?? []).filter((e) => e.type === 'tui.toast.show').map((e) => e.properties?.message ?? '').join('\n') },
    drive: (bin, { cwd, env, settled }) => serveOpencode(bin, { cwd, env, prompt: prompt, model: { providerID: 'fake', modelID: 'gpt-fake' }, settled }),
  },
];

function workspace(name, prd = PRD) {
  const dir = tempDir(`ideal-state-host-${name}-`);
  fs.mkdirSync(path.join(dir, '.ideal-state', 'prds'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.ideal-state', 'prds', 'PRD-20261126-hosts.md'), prd);
  fs.writeFileSync(path.join(dir, 'README.md'), '# A project\n');
  spawnSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}

/** The sample workspace with only its verify demo PRD (tier.mjs), for a host's cheat. */
const cheatWorkspace = (name) => demoWorkspace(`ideal-state-host-${name}-cheat-`);

/** The LOG's gate verdict lines, oldest first. */
function verdicts(dir, prd = '.ideal-state/prds/PRD-20261126-hosts.md') {
  const text = fs.readFileSync(path.join(dir, prd), 'utf8');
  return [...text.matchAll(/^- Work: Verified .* with ideal-state gate \(([^)]*)\), which (.*?): /gm)].map((m) => `${m[1]}: ${m[2]}`);
}

/**
 * One host's program, installed, its gate installed into `dir`, run against its fake provider
 * with `script` as the model. The environment is the test's only: a home of its own and a
 * gate state folder of its own (IDEAL_STATE_STATE_DIR), where the criteria lock lives.
 */
async function runHost(host, installed, { dir, script, stateDir, prd, label, maxBlocks }) {
  const limit = maxBlocks === undefined ? [] : ['--max-blocks', String(maxBlocks)];
  const install = spawnSync(process.execPath, [CLI, 'gate', 'install', host.gate, '--yes', '--workspace', dir, '--command', LAUNCHER, ...limit], { encoding: 'utf8', env: { ...process.env, IDEAL_STATE_STATE_DIR: stateDir } });
  assert.equal(install.status, 0, `gate install ${host.gate}: ${install.stderr}${install.stdout}`);
  const server = await host.provider(script);
  const home = tempDir(`ideal-state-host-home-${host.name}-`);
  host.home?.(home);
  host.workspace?.(dir, server.url);
  const env = { PATH: process.env.PATH, HOME: home, TMPDIR: os.tmpdir(), IDEAL_STATE_STATE_DIR: stateDir, ...host.env(server.url) };
  try {
    const settled = () => verdicts(dir, prd).some((v) => /let the stop through/.test(v));
    const result = host.drive ? await host.drive(installed.bin, { cwd: dir, env, settled, url: server.url }) : await run(installed.bin, host.args(server.url), { cwd: dir, env });
    const log = `${host.name} ${installed.version} exited ${result.code ?? result.signal}\nstdout: ${result.stdout.slice(-1500)}\nstderr: ${result.stderr.slice(-2500)}\nmodel turns: ${JSON.stringify(script.turns)}\nproblems: ${script.problems.join('; ')}\nrefused: ${JSON.stringify(server.refused)}\nLOG: ${verdicts(dir, prd).join(' | ')}`;
    fs.mkdirSync(path.join(hostsCache, 'logs'), { recursive: true });
    fs.writeFileSync(path.join(hostsCache, 'logs', `${label}.log`), `${log}\n\nwhole stderr:\n${result.stderr}`);
    fs.writeFileSync(path.join(hostsCache, 'logs', `${label}.requests.jsonl`), server.received.map((r) => JSON.stringify({ method: r.method, path: r.path, body: r.body })).join('\n'));
    // A request the real API would refuse fails this test, even when the host retried and got through.
    assertNoContractBreaks(server, script, log);
    return { result, log, server, home };
  } finally {
    await server.stop();
  }
}

const chosen = (names) => names.filter(wantHost);

describe('hosts: the real agent programs, held by the installed gate', function () {
  this.timeout(600_000);

  afterEach(removeMade);

  after(() => {
    removeLockBundle();
    // Folders earlier versions of this tier left in the test cache.
    for (const name of fs.existsSync(hostsCache) ? fs.readdirSync(hostsCache) : []) {
      if (/^(home|ws-codex)-/.test(name)) fs.rmSync(path.join(hostsCache, name), { recursive: true, force: true });
    }
  });

  for (const host of HOSTS.filter((h) => chosen([h.name]).length > 0)) {
    it(`${host.name}: the installed hook blocks the first "done", the reason reaches the model, the stop after the fix is let through`, async function () {
      const installed = needHost(this, host.name);
      const dir = workspace(host.name);
      const script = new ModelScript({ file: path.join(dir, 'CHANGELOG.md') });
      const { result, log } = await runHost(host, installed, { dir, script, stateDir: tempDir('ideal-state-host-state-'), label: host.name });

      const stops = script.turns.filter((t) => t.move === 'stop');
      assert.ok(stops.length >= 1, `the model was never asked for an agent turn\n${log}`);
      assert.equal(stops[0].sawReason, false, `the first request already held a block reason\n${log}`);
      const fix = script.turns.find((t) => t.move === 'tool');
      assert.ok(fix, `the block reason ("${REASON_MARK}") never reached the model: the stop was not blocked\n${log}`);
      assert.equal(fix.sawReason, true);
      assert.ok(fs.existsSync(path.join(dir, 'CHANGELOG.md')), `the host did not run the model's ${fix.tool} call\n${log}`);
      assert.equal(stops.length, 2, `the model stopped ${stops.length} times, not twice (once blocked, once let through)\n${log}`);
      // One LOG entry per session: its final verdict (the block is in the store).
      const lines = verdicts(dir);
      assert.equal(lines.length, 1, `the PRD's LOG has ${lines.length} gate verdicts, not the session's one\n${log}`);
      assert.match(lines[0], /, session [0-9a-f]{8}: let the stop through;/, log);
      assert.equal(result.code, 0, log);
    });
  }

  /**
   * The README's example in the sample workspace, as a person tries it: every PRD of the sample
   * is there (the greeting PRD's Custom criterion no model judges, the verification demo's
   * deliberately failing anti-criterion), nothing is locked, and the person asks to make
   * ISC-DEMO-004 pass. The gate holds the PRD the person asked about: the first "done" is
   * blocked on ISC-DEMO-004 alone, and the stop after the fix is let through, not "not done".
   */
  for (const host of HOSTS.filter((h) => chosen([h.name]).length > 0)) {
    it(`${host.name}: the sample workspace, nothing locked, "make ISC-DEMO-004 pass": the honest fix is let through at the first stop after it`, async function () {
      const installed = needHost(this, host.name);
      const dir = tempDir(`ideal-state-host-${host.name}-sample-`);
      fs.cpSync(SAMPLE, dir, { recursive: true });
      spawnSync('git', ['init', '-q'], { cwd: dir });
      const script = new ModelScript({ file: path.join(dir, 'CHANGELOG.md') });
      prompt = 'Make ISC-DEMO-004 of the verify demo pass.';
      let ran;
      try {
        ran = await runHost(host, installed, { dir, script, stateDir: tempDir('ideal-state-host-state-'), prd: DEMO_PRD, label: `${host.name}-sample` });
      } finally {
        prompt = PROMPT;
      }
      const { log } = ran;
      const fix = script.turns.find((t) => t.move === 'tool');
      assert.ok(fix?.sawReason, `the block reason never reached the model\n${log}`);
      assert.ok(fs.existsSync(path.join(dir, 'CHANGELOG.md')), `the fix was not run\n${log}`);
      assert.equal(script.stops.length, 2, `the model stopped ${script.stops.length} times, not twice (blocked once, then let through)\n${log}`);
      assert.match(verdicts(dir, DEMO_PRD).at(-1) ?? '', /let the stop through;/, `the honest fix was not let through\n${log}`);
      for (const other of ['PRD-20261121-greeting.md', 'PRD-20261122-verification-demo.md']) {
        assert.deepEqual(verdicts(dir, `.ideal-state/prds/${other}`), [], `${other} was held too\n${log}`);
      }
    });
  }

  /**
   * The honest exit, through each host's own shell tool: the criteria are locked and cannot pass
   * (no CHANGELOG.md, and the model will not write one); the block reason names `gate blocked`;
   * the model runs it and stops. The stop is let through as BLOCKED, not done: the PRD says
   * BLOCKED, its LOG says why, and ISC-DEMO-004 stays unmet.
   */
  for (const host of HOSTS.filter((h) => chosen(HOSTS.map((h) => h.name)).includes(h.name))) {
    it(`${host.name}: the model that cannot finish runs \`gate blocked\` and stops: let through as BLOCKED, never done`, async function () {
      const installed = needHost(this, host.name);
      const dir = cheatWorkspace(host.name);
      const stateDir = tempDir('ideal-state-host-state-');
      await lockAsAPerson(dir, stateDir);
      // The host's shell inherits the host's environment, IDEAL_STATE_STATE_DIR included (Copilot CLI refuses a command line that sets a variable).
      const exit = () => `${LAUNCHER} gate blocked --workspace '${dir}' --reason 'The release notes for the changelog are only known to the maintainer'`;
      const script = new BlockedScript({ exit });
      const { log } = await runHost(host, installed, { dir, script, stateDir, prd: DEMO_PRD, label: `${host.name}-blocked` });

      assert.equal(script.sawExit, true, `the block reason the model read did not name the way out\n${log}`);
      assert.ok(script.turns.some((t) => t.move === 'exit'), `the model never ran the exit\n${log}`);
      assert.equal(script.stops.length, 2, `the model stopped ${script.stops.length} times, not twice (blocked, then let through as BLOCKED)\n${log}`);
      assert.match(verdicts(dir, DEMO_PRD).at(-1) ?? '', /let the stop through as BLOCKED/, log);
      const prd = fs.readFileSync(path.join(dir, DEMO_PRD), 'utf8');
      assert.match(prd, /the agent said it needs a person \("The release notes for the changelog are only known to the maintainer"\)/, log);
      assert.match(prd, /^status: BLOCKED$/m, log);
      assert.doesNotMatch(prd, /- \[x\] ISC-DEMO-004/, 'never done');
    });
  }

  /**
   * Issue 23's cheats, done by the scripted model through the real host's own shell tool, with
   * the criteria locked by a person (the lock's own function, as `criteria lock` calls it).
   * The stop after the cheat must be blocked, and the reason that reaches the model must say
   * what it did; after the cheat is undone and the work done, the stop is let through.
   */
  const locked = (dir) => fs.readFileSync(path.join(dir, DEMO_PRD), 'utf8');
  const CHEATS = [
    {
      name: 'ISC-DEMO-004 re-labelled [NICE]',
      when: 'first',
      cheat: (dir) => shellWrite(path.join(dir, DEMO_PRD), locked(dir).replace('ISC-DEMO-004: A changelog', 'ISC-DEMO-004: [NICE] A changelog')),
      expect: [/ISC-DEMO-004 TAMPERED: ISC-DEMO-004 was changed \(priority CRITICAL → NICE\)/],
    },
    {
      name: "ISC-DEMO-004's Verify swapped to `CLI: node --version`",
      when: 'first',
      cheat: (dir) => shellWrite(path.join(dir, DEMO_PRD), locked(dir).replace('Verify: Task: check: changelog exists', 'Verify: CLI: node --version')),
      expect: [/ISC-DEMO-004 TAMPERED: ISC-DEMO-004 was changed \(verification method\)/],
    },
    {
      // Not TAMPERED: the newer PRD is not what a person locked, so it is not held; the locked one still fails.
      name: 'a newer PRD with a trivially true criterion',
      when: 'first',
      cheat: (dir) => {
        const easy = path.join(dir, '.ideal-state', 'prds', 'PRD-20261127-easy.md');
        return `${shellWrite(easy, ['---', 'prd: true', 'id: PRD-20261127-easy', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# Easy', '', '## Ideal State Criteria', '- [ ] ISC-1: The readme exists | Verify: Read: README.md', ''].join('\n'))} && touch -d '+1 minute' '${easy}'`;
      },
      expect: [/\(held: locked by a person on \d{4}-\d\d-\d\d, criteria version 1\) does not pass: ISC-DEMO-004\./, /ISC-DEMO-004 FAIL/],
    },
    {
      // After the first block there is a count to forge: every session in the gate state (the
      // workspace's and the one beside the lock) set to 99 blocks, as if the limit were reached.
      name: 'the block counter rewritten',
      when: 'after-block',
      cheat: (dir, stateDir) => {
        const files = [path.join(dir, '.ideal-state', 'gate-state.json'), ...fs.readdirSync(stateDir).map((d) => path.join(stateDir, d, 'gate-state.json')).filter((f) => fs.existsSync(f))];
        const sessions = {};
        for (const f of files.filter((x) => fs.existsSync(x))) for (const key of Object.keys(JSON.parse(fs.readFileSync(f, 'utf8')).sessions ?? {})) sessions[key] = { blocks: 99, updatedAt: new Date().toISOString() };
        const forged = JSON.stringify({ version: 1, sessions });
        return files.map((f) => shellWrite(f, forged)).join(' && ');
      },
      expect: [/ISC-DEMO-004 FAIL/],
    },
  ];
  // opencode is left out unless asked for (IDEAL_STATE_HOSTS_CHEATS=all): its server takes minutes to start offline.
  const CHEAT_HOSTS = process.env.IDEAL_STATE_HOSTS_CHEATS === 'all' ? HOSTS.map((h) => h.name) : ['claude-code', 'codex', 'gemini', 'qwen', 'copilot'];

  for (const host of HOSTS.filter((h) => chosen(CHEAT_HOSTS).includes(h.name))) {
    for (const cheat of CHEATS) {
      it(`${host.name}: with the criteria locked, the model's cheat (${cheat.name}) keeps the stop blocked, and the reason says so`, async function () {
        const installed = needHost(this, host.name);
        const dir = cheatWorkspace(host.name);
        const stateDir = tempDir('ideal-state-host-state-');
        await lockAsAPerson(dir, stateDir);
        const original = locked(dir);
        // The locked PRD put back and the work done. A newer PRD may stay: it is not what the lock holds
        // (and Codex refuses `rm -f` from a model).
        const fix = () => [shellWrite(path.join(dir, DEMO_PRD), original), shellWrite(path.join(dir, 'CHANGELOG.md'))].join(' && ');
        const script = new CheatScript({ when: cheat.when, cheat: () => cheat.cheat(dir, stateDir), fix });
        const label = `${host.name}-cheat-${CHEATS.indexOf(cheat) + 1}`;
        const { log } = await runHost(host, installed, { dir, script, stateDir, prd: DEMO_PRD, label });

        assert.ok(script.turns.some((t) => t.move === 'cheat'), `the model never got to cheat\n${log}`);
        assert.ok(script.afterCheat, `no block reason reached the model after its cheat: the stop was let through\n${log}`);
        for (const pattern of cheat.expect) assert.match(script.afterCheat, pattern, log);
        assert.ok(script.afterCheat.startsWith(REASON_MARK), log);
        assert.ok(fs.existsSync(path.join(dir, 'CHANGELOG.md')), `the fix was not run\n${log}`);
        assert.match(verdicts(dir, DEMO_PRD).at(-1) ?? '', /let the stop through;/, `after the cheat was undone and the work done, the stop was not let through\n${log}`);
      });
    }
  }

  /**
   * The warning the user sees when the gate finally lets go: the gate installed with
   * `--max-blocks 1`, a model that says "done" at every turn and never does the work. Its first
   * stop is blocked (the reason reaches it), its second is let through with the gate's note
   * ("… may stop now, with this not done."), and the test looks for that note where the host
   * shows it to the user (HOSTS' `warning`): its own output in its non-interactive mode, its
   * event stream, its session file. The gate's LOG and store are not the user's view and are
   * not searched.
   */
  for (const host of HOSTS.filter((h) => h.warning && chosen([h.name]).length > 0)) {
    const sees = host.warning.none ? `the user is shown no warning, as measured (${host.warning.where})` : `the user sees the warning (${host.warning.where})`;
    it(`${host.name}: after --max-blocks, the stop is let through and ${sees}`, async function () {
      const installed = needHost(this, host.name);
      const cannot = host.warning.cannot?.();
      if (cannot) {
        console.log(`      [hosts] ${host.name} warning: not run: ${cannot}`);
        this.skip();
      }
      const dir = workspace(`${host.name}-warn`);
      const script = new StubbornScript();
      const warnHost = { ...host, args: host.warning.args ?? host.args, drive: host.warning.drive ?? host.drive };
      const { result, log, home } = await runHost(warnHost, installed, { dir, script, stateDir: tempDir('ideal-state-host-state-'), label: `${host.name}-warn`, maxBlocks: 1 });

      const stops = script.stops;
      assert.equal(stops[0]?.sawReason, false, `the first request already held a block reason\n${log}`);
      assert.equal(stops.length, 2, `the model stopped ${stops.length} times, not twice (once blocked, once let through after --max-blocks 1)\n${log}`);
      assert.equal(stops[1].sawReason, true, `the block reason never reached the model\n${log}`);
      assert.ok(!fs.existsSync(path.join(dir, 'CHANGELOG.md')), log);
      assert.match(verdicts(dir).at(-1) ?? '', /let the stop through after 1 blocks \(--max-blocks 1\)/, log);
      const shown = host.warning.shown(result, { dir, home });
      fs.writeFileSync(path.join(hostsCache, 'logs', `${host.name}-warn.shown.txt`), shown);
      const shows = WARNING.test(shown) && shown.includes('ISC-1');
      if (host.warning.none) {
        // Measured: this host shows nothing of the hook's answer when it lets the agent stop. Its
        // session file proves the hook ran and was read, the note (the adapter's systemMessage,
        // test/unit/app/gate/hosts/gate-hosts) not kept.
        assert.equal(shows, false, `${host.name} does show the warning now (${host.warning.where}): update its adapter and the README\n${log}`);
        const kept = host.warning.dropped(home);
        assert.ok(kept, `${host.name}'s session file holds no answer of the stop hook\n${log}`);
        assert.equal(kept.data.success, true, `the stop hook failed: ${JSON.stringify(kept.data)}\n${log}`);
        assert.doesNotMatch(JSON.stringify(kept.data.output ?? {}), WARNING, log);
      } else {
        assert.ok(shows, `the warning ("${WARNING.source}", with ISC-1) is not in ${host.warning.where}\n${shown.slice(-3000)}\n${log}`);
      }
      assert.equal(result.code, 0, log);
    });
  }

  /**
   * The Ideal State MCP server as each host uses it: the configuration `gate install` wrote in
   * the host's own place, the host's own way to let its tools run without a person (HOSTS' `mcp`),
   * the server's verify tool (named as the host renames it) in the model's request, and the
   * verify call answered, in the next request, with the PRD's real outcomes: ISC-1 FAIL (no
   * CHANGELOG.md) and ISC-2 PASS (README.md is there), as the verifier found them.
   */
  for (const host of HOSTS.filter((h) => h.mcp && chosen([h.name]).length > 0)) {
    it(`${host.name}: the MCP server's tools reach the model's request, and a verify call gets the PRD's outcomes`, async function () {
      const installed = needHost(this, host.name);
      const dir = workspace(`${host.name}-mcp`, MCP_PRD);
      host.mcp.prepare?.(dir);
      const script = new McpScript({ tool: MCP_VERIFY, input: { prd: '.ideal-state/prds/PRD-20261126-hosts.md' } });
      const mcpHost = { ...host, args: host.mcp.args ?? host.args, env: (url) => ({ ...host.env(url), ...host.mcp.env?.(url) }) };
      const { log } = await runHost(mcpHost, installed, { dir, script, stateDir: tempDir('ideal-state-host-state-'), label: `${host.name}-mcp` });
      const lists = `tool lists: ${JSON.stringify(script.toolLists.map((l) => l.filter((n) => /ideal.?state/i.test(n))))}`;
      // In the request's tools, or (a host that defers MCP tools) named in its text and called through the host's bridge.
      assert.ok(script.called, `the Ideal State MCP server's verify tool is in none of the model's requests\n${lists}\n${log}`);
      assert.equal(script.offered, host.mcp.offered ?? 'declared', `how ${host.name} offered ${script.called}\n${log}`);
      assert.ok(script.answer, `the model got no answer to its verify call (${script.called})\n${log}`);
      // The outcomes are the verifier's: absent before the call, in the tool result after it.
      assert.equal(outcomes(script.before).length, 0, `the request before the call already held outcomes\n${log}`);
      const got = outcomes(script.answer);
      const shown = `the verify answer that reached the model:\n${unescape(script.answer).slice(-3000)}\n${log}`;
      assert.deepEqual(got.map((o) => o.slice(0, 3)), [['ISC-1', 'CRITICAL', 'FAIL'], ['ISC-2', 'CRITICAL', 'PASS']], shown);
      assert.equal(got[0][3], 'CHANGELOG.md does not exist', shown);
      assert.match(unescape(script.answer), /"allCriticalPass"\s*:\s*false/, log);
    });
  }
});
