import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readClaudeCode } from '../../../src/app/gate/doctor/claude-code';
import { readHostConfig } from '../../../src/app/gate/doctor/host-config';
import { hostAdapter } from '../../../src/app/gate/hosts';
import { stopIsElsewhere } from '../../../src/app/gate/hosts/project';
import { gateStateFolder } from '../../../src/app/gate/state-folder';
import { gateCommand } from '../../../src/cli/gate/stop';
import { gateInstallCommand } from '../../../src/cli/gate/install';
import { sandboxMissing, scopeTarget } from '../../../src/cli/gate/install/scope';
import { BUILT_CLI } from '../support/cli-helpers';

/**
 * `gate install claude-code --scope user|managed`: the hook out of the workspace, in Claude
 * Code's user settings (CLAUDE_CONFIG_DIR honoured) or a managed drop-in, keyed to the workspace,
 * with deny rules for the files that switch it off; a workspace install says its risk. The user
 * settings folder is the test's own (CLAUDE_CONFIG_DIR / HOME), never the person's.
 */
describe('command line: gate install --scope', function () {
  this.timeout(60_000);
  const tmp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), p));

  async function install(args: string[], env: NodeJS.ProcessEnv) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await gateInstallCommand([...args, '--yes', '--no-mcp'], { out: (s) => out.push(s), err: (s) => err.push(s) }, { node: process.execPath, cli: BUILT_CLI, env });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('--scope user writes Stop, SubagentStop and UserPromptSubmit into CLAUDE_CONFIG_DIR/settings.json, keyed to the workspace, with deny rules; nothing in the workspace', async () => {
    const ws = tmp('ideal-state-scope-ws-');
    const config = tmp('ideal-state-scope-config-');
    fs.writeFileSync(path.join(config, 'settings.json'), JSON.stringify({ model: 'opus', permissions: { deny: ['Bash(rm -rf *)'] } }, null, 2));
    const env = { HOME: tmp('ideal-state-scope-home-'), CLAUDE_CONFIG_DIR: config, IDEAL_STATE_STATE_DIR: tmp('ideal-state-scope-state-') };
    const r = await install(['claude-code', '--scope', 'user', '--workspace', ws], env);
    assert.equal(r.code, 0, r.err);
    assert.ok(!fs.existsSync(path.join(ws, '.claude')), 'nothing written into the workspace');
    assert.ok(!fs.existsSync(path.join(env.HOME, '.claude')), 'CLAUDE_CONFIG_DIR, not ~/.claude');
    const settings = JSON.parse(fs.readFileSync(path.join(config, 'settings.json'), 'utf8'));
    assert.equal(settings.model, 'opus');
    for (const event of ['Stop', 'SubagentStop', 'UserPromptSubmit']) {
      const command: string = settings.hooks[event][0].hooks[0].command;
      assert.match(command, new RegExp(`gate --host claude-code --workspace ${ws.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} --deadline 600 --user-level$`));
    }
    const state = await gateStateFolder(ws, env);
    assert.deepEqual(settings.permissions.deny, [
      'Bash(rm -rf *)',
      `Edit(/${path.join(ws, '.claude', 'settings.json')})`,
      `Edit(/${path.join(ws, '.claude', 'settings.local.json')})`,
      `Edit(/${state}/**)`,
      `Edit(/${path.join(config, 'settings.json')})`,
    ]);
    // Every move measured as still open at user scope is said at install.
    assert.match(r.out, /Still open at user scope \(measured, Claude Code [\d.]+\): a "disableAllHooks": true in the workspace's .* turns a user-level hook off/);
    assert.match(r.out, /a second Stop hook the agent adds that answers \{"continue": false\}/);
    assert.match(r.out, /NODE_OPTIONS preload/);
    assert.match(r.out, /without the sandbox a program the agent runs \(node -e …\) can still edit the user settings/);
    assert.match(r.out, /--scope managed is the one no workspace setting turns off/);

    // A second workspace gets its own entries; installing the first again changes nothing.
    const other = tmp('ideal-state-scope-ws2-');
    assert.equal((await install(['claude-code', '--scope', 'user', '--workspace', other], env)).code, 0);
    const again = await install(['claude-code', '--scope', 'user', '--workspace', ws], env);
    assert.match(again.out, /already set for Claude Code; nothing to change/);
    const both = JSON.parse(fs.readFileSync(path.join(config, 'settings.json'), 'utf8'));
    assert.equal(both.hooks.Stop.length, 2);
    assert.deepEqual(both.hooks.Stop.map((g: { hooks: { command: string }[] }) => g.hooks[0]!.command.includes(other)), [false, true]);
  });

  it('--sandbox turns Claude Code\'s sandbox on in the scoped settings (only there), and says where it cannot run', async () => {
    const ws = tmp('ideal-state-scope-ws-');
    const home = tmp('ideal-state-scope-home-');
    const env = { HOME: home, IDEAL_STATE_STATE_DIR: tmp('ideal-state-scope-state-'), PATH: '' };
    const plain = await install(['claude-code', '--scope', 'user', '--workspace', ws], env);
    assert.equal(plain.code, 0, plain.err);
    assert.equal(JSON.parse(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8')).sandbox, undefined);
    assert.match(plain.out, /add --sandbox to turn it on/);
    const boxed = await install(['claude-code', '--scope', 'user', '--sandbox', '--workspace', ws], env);
    assert.equal(boxed.code, 0, boxed.err);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8')).sandbox, { enabled: true });
    if (process.platform === 'linux') assert.match(boxed.out, /but bwrap and socat are not installed/, 'an empty PATH has neither');
    const refused = await install(['claude-code', '--sandbox', '--workspace', ws], env);
    assert.equal(refused.code, 2);
    assert.match(refused.err, /--sandbox goes with claude-code --scope user or managed/);
    assert.equal(sandboxMissing('darwin', () => false), undefined);
    assert.equal(sandboxMissing('linux', () => true), undefined);
    assert.match(sandboxMissing('linux', (p) => p === 'bwrap') ?? '', /^socat is not installed/);
    assert.match(sandboxMissing('win32', () => true) ?? '', /native Windows/);
  });

  it('--scope user for Codex, Gemini CLI and Qwen Code: CODEX_HOME/hooks.json, ~/.gemini/settings.json, ~/.qwen/settings.json, in each host\'s shape and unit; the doctor finds them', async () => {
    const ws = tmp('ideal-state-scope-ws-');
    const home = tmp('ideal-state-scope-home-');
    const codexHome = tmp('ideal-state-scope-codex-');
    const env = { HOME: home, CODEX_HOME: codexHome };
    for (const host of ['codex', 'gemini', 'qwen']) {
      const r = await install([host, '--scope', 'user', '--workspace', ws], env);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /Risk: .*inside the workspace.*still turns it off/);
    }
    assert.ok(!fs.existsSync(path.join(ws, '.codex')) && !fs.existsSync(path.join(ws, '.gemini')) && !fs.existsSync(path.join(ws, '.qwen')), 'nothing in the workspace');
    const codex = JSON.parse(fs.readFileSync(path.join(codexHome, 'hooks.json'), 'utf8'));
    assert.match(codex.hooks.Stop[0].hooks[0].command, /gate --host codex --workspace /);
    assert.equal(codex.hooks.Stop[0].hooks[0].timeout, 600);
    assert.equal(codex.permissions, undefined, 'no Claude Code permission rules in another host\'s file');
    const gemini = JSON.parse(fs.readFileSync(path.join(home, '.gemini', 'settings.json'), 'utf8'));
    assert.equal(gemini.hooks.AfterAgent[0].hooks[0].timeout, 600000);
    assert.match(gemini.hooks.BeforeAgent[0].hooks[0].command, /gate --host gemini/);
    const qwen = JSON.parse(fs.readFileSync(path.join(home, '.qwen', 'settings.json'), 'utf8'));
    assert.match(qwen.hooks.Stop[0].hooks[0].command, /gate --host qwen/);
    for (const [host, shown] of [['codex', path.join(codexHome, 'hooks.json')], ['gemini', '~/.gemini/settings.json'], ['qwen', '~/.qwen/settings.json']] as const) {
      const found = await readHostConfig(hostAdapter(host)!, ws, { env: { ...env, GEMINI_CLI_SYSTEM_SETTINGS_PATH: path.join(home, 'none'), QWEN_CODE_SYSTEM_SETTINGS_PATH: path.join(home, 'none') } });
      assert.equal(found?.installedIn, shown, host);
    }
  });

  it('--scope user without CLAUDE_CONFIG_DIR writes ~/.claude/settings.json', async () => {
    const ws = tmp('ideal-state-scope-ws-');
    const home = tmp('ideal-state-scope-home-');
    const r = await install(['claude-code', '--scope', 'user', '--workspace', ws], { HOME: home, IDEAL_STATE_STATE_DIR: tmp('ideal-state-scope-state-') });
    assert.equal(r.code, 0, r.err);
    assert.match(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8'), /gate --host claude-code --workspace/);
  });

  it('a workspace install states the risk and the safer command; --scope is refused for a host without user settings here, and a bad scope is named', async () => {
    const ws = tmp('ideal-state-scope-ws-');
    const env = { HOME: tmp('ideal-state-scope-home-') };
    const claude = await install(['claude-code', '--workspace', ws], env);
    assert.equal(claude.code, 0, claude.err);
    assert.match(claude.out, /Risk: \.claude\/settings\.json is inside the workspace.*disableAllHooks.*--scope managed/s);
    const codex = await install(['codex', '--workspace', ws], env);
    assert.match(codex.out, /Risk: .*sandbox_mode = "workspace-write"/);
    const refused = await install(['copilot', '--scope', 'user', '--workspace', ws], env);
    assert.equal(refused.code, 2);
    assert.match(refused.err, /--scope user is not a place Copilot CLI reads hooks from \(it takes: workspace\)/);
    const managed = await install(['codex', '--scope', 'managed', '--workspace', ws], env);
    assert.equal(managed.code, 2);
    assert.match(managed.err, /it takes: workspace, user/);
    const bad = await install(['claude-code', '--scope', 'global', '--workspace', ws], env);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--scope takes workspace, user, managed, not "global"/);
  });

  it('--scope managed: one drop-in per workspace in managed-settings.d; where it cannot be written, a clear error naming the folder', async function () {
    if (process.getuid?.() === 0) {
      // Root can write /etc/claude-code: the test would change the machine's managed settings.
      const ws = tmp('ideal-state-scope-ws-');
      const target = scopeTarget('managed', ws, {}, 'linux');
      assert.equal(path.dirname(target.shown), '/etc/claude-code/managed-settings.d');
      assert.match(path.basename(target.shown), /^ideal-state-ideal-state-scope-ws-.*-[0-9a-f]{12}\.json$/);
      return;
    }
    const ws = tmp('ideal-state-scope-ws-');
    const r = await install(['claude-code', '--scope', 'managed', '--workspace', ws], { HOME: tmp('ideal-state-scope-home-') });
    assert.equal(r.code, 1);
    assert.match(r.err, /managed-settings\.d.*not written.*administrator/);
  });

  it('the doctor reads a managed drop-in: a workspace disableAllHooks does not turn that gate off', async () => {
    const ws = tmp('ideal-state-scope-ws-');
    const managed = tmp('ideal-state-scope-managed-');
    fs.mkdirSync(path.join(managed, 'managed-settings.d'));
    const command = `${process.execPath} ${BUILT_CLI} gate --host claude-code --workspace ${ws} --deadline 600`;
    fs.writeFileSync(path.join(managed, 'managed-settings.d', 'ideal-state-x.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command }] }] } }));
    fs.mkdirSync(path.join(ws, '.claude'));
    fs.writeFileSync(path.join(ws, '.claude', 'settings.local.json'), JSON.stringify({ disableAllHooks: true }));
    const home = tmp('ideal-state-scope-home-');
    const f = await readClaudeCode(ws, { home, managedFile: path.join(managed, 'managed-settings.json'), env: { HOME: home } });
    assert.ok(f);
    assert.deepEqual(f.neverRuns, []);
    assert.equal(f.installedIn, path.join(managed, 'managed-settings.d', 'ideal-state-x.json'));
    // The same gate in user settings is turned off by it, and the doctor says how to do better.
    fs.rmSync(path.join(managed, 'managed-settings.d'), { recursive: true });
    fs.mkdirSync(path.join(home, '.claude'));
    fs.writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command }] }] } }));
    const user = await readClaudeCode(ws, { home, managedFile: path.join(managed, 'managed-settings.json'), env: { HOME: home } });
    assert.deepEqual(user?.neverRuns, ['disableAllHooks in .claude/settings.local.json']);
    assert.ok(user?.bypasses.some((b) => /turns this user-level gate off mid-session.*--scope managed/.test(b)), user?.bypasses.join('\n'));
  });

  it('the doctor names a code-loading NODE_OPTIONS in the environment Claude Code starts with', async () => {
    const ws = tmp('ideal-state-scope-ws-');
    const home = tmp('ideal-state-scope-home-');
    fs.mkdirSync(path.join(home, '.claude'));
    fs.writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: `${process.execPath} ${BUILT_CLI} gate --host claude-code --workspace ${ws}` }] }] } }));
    const managedFile = path.join(tmp('ideal-state-scope-managed-'), 'managed-settings.json');
    const quiet = await readClaudeCode(ws, { home, managedFile, env: { HOME: home } });
    assert.ok(!quiet?.bypasses.some((b) => b.includes('NODE_OPTIONS')));
    const loaded = await readClaudeCode(ws, { home, managedFile, env: { HOME: home, NODE_OPTIONS: '--require /tmp/x.cjs' } });
    assert.ok(loaded?.bypasses.some((b) => /NODE_OPTIONS in the environment Claude Code starts with .*loads code into the gate's own Node/.test(b)), loaded?.bypasses.join('\n'));
  });
});

describe('gate: a stop from another project than the one a user-level gate holds', function () {
  this.timeout(60_000);
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-elsewhere-ws-'));
  const other = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-elsewhere-other-'));
  const request = (cwd: string | undefined) => ({ host: 'claude-code', event: 'Stop', sessionKey: 'k', ...(cwd ? { cwd } : {}) });

  it('is elsewhere only when the payload cwd, the hook folder and CLAUDE_PROJECT_DIR are all outside the workspace', () => {
    assert.equal(stopIsElsewhere(request(other), ws, { CLAUDE_PROJECT_DIR: other }, other), true);
    assert.equal(stopIsElsewhere(request(path.join(ws, 'sub')), ws, { CLAUDE_PROJECT_DIR: other }, other), false);
    // An env.CLAUDE_PROJECT_DIR the agent wrote into its settings is not enough on its own.
    assert.equal(stopIsElsewhere(request(ws), ws, { CLAUDE_PROJECT_DIR: other }, ws), false);
    assert.equal(stopIsElsewhere(request(other), ws, { CLAUDE_PROJECT_DIR: ws }, other), false);
    // A payload that does not say where the session is holds the stop, wherever the hook started.
    assert.equal(stopIsElsewhere(request(undefined), ws, {}, other), false);
  });

  it('compares real paths: the workspace named through a link is the same folder', () => {
    const link = path.join(other, 'link-to-ws');
    fs.symlinkSync(ws, link);
    assert.equal(stopIsElsewhere(request(ws), link, { CLAUDE_PROJECT_DIR: ws }, ws), false);
  });

  it('a --user-level gate lets another project\'s stop through at once, silent, writing nothing; the same stop in its workspace blocks, and a workspace gate holds its workspace', async () => {
    fs.mkdirSync(path.join(ws, '.ideal-state', 'prds'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.ideal-state', 'prds', 'PRD-20261128-x.md'), ['---', 'prd: true', 'id: PRD-20261128-x', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# X', '', '## Ideal State Criteria', '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md', '', '## LOG', ''].join('\n'));
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-elsewhere-state-'));
    const run = async (cwd: string, flags: string[] = ['--user-level']) => {
      const out: string[] = [];
      const err: string[] = [];
      const saved = process.cwd();
      process.chdir(cwd);
      try {
        const code = await gateCommand(['--host', 'claude-code', '--workspace', ws, '--no-store', ...flags], {
          out: (s) => out.push(s),
          err: (s) => err.push(s),
          readStdin: async () => JSON.stringify({ session_id: 's', hook_event_name: 'Stop', cwd, stop_hook_active: false }),
          env: { PATH: process.env.PATH, HOME: os.homedir(), CLAUDE_PROJECT_DIR: cwd, IDEAL_STATE_STATE_DIR: state },
          exit: () => undefined,
        });
        return { code, out: out.join('\n'), err: err.join('\n') };
      } finally {
        process.chdir(saved);
      }
    };
    const elsewhere = await run(other);
    assert.deepEqual(elsewhere, { code: 0, out: '', err: '' });
    assert.deepEqual(fs.readdirSync(state), [], 'nothing written for another project');
    // A workspace install (no --user-level) holds its workspace whatever the payload says.
    const workspaceLevel = await run(other, []);
    assert.match(workspaceLevel.out, /"decision":"block"/);
    const here = await run(ws);
    assert.equal(here.code, 0);
    assert.match(here.out, /"decision":"block"/);
  });
});
