import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gateInstallCommand } from '../../../src/cli/gate/install';
import { BUILT_CLI } from '../support/cli-helpers';

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-gate-install-'));
}

async function install(workspace: string, args: string[], answer?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await gateInstallCommand(
    [...args, '--workspace', workspace],
    {
      out: (s) => out.push(s),
      err: (s) => err.push(s),
      ...(answer !== undefined ? { ask: async () => answer } : {}),
    },
    // As installed: this Node and the built command line, whose absolute paths the hook names.
    { node: process.execPath, cli: BUILT_CLI },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const read = (ws: string, rel: string) => fs.readFileSync(path.join(ws, rel), 'utf8');
const json = (ws: string, rel: string) => JSON.parse(read(ws, rel));
/** The hook's command line as installed: Node and the command line file by their absolute real paths, never looked up on PATH. */
const LAUNCHER = `${fs.realpathSync(process.execPath)} ${fs.realpathSync(BUILT_CLI)}`;
/** `ideal-state` is not on this PATH (or is another install): the MCP entry starts the same Node and command line as the hook. */
const [NODE, CLI] = [fs.realpathSync(process.execPath), fs.realpathSync(BUILT_CLI)];
const cmd = (host: string, ws: string, extra = '') => `${LAUNCHER} gate --host ${host} --workspace ${ws} --deadline 600${extra}`;

describe('command line: gate install', () => {
  it('claude-code: Stop, SubagentStop and UserPromptSubmit hooks in .claude/settings.json with the workspace in the command, keeping what is there; twice changes nothing', async () => {
    const ws = tmp();
    fs.mkdirSync(path.join(ws, '.claude'));
    const existing = {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './check.sh' }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }],
      },
    };
    fs.writeFileSync(path.join(ws, '.claude/settings.json'), `${JSON.stringify(existing, null, 4)}\n`);
    const r = await install(ws, ['claude-code', '--yes']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^--- \.claude\/settings\.json\n\+\+\+ \.claude\/settings\.json \(\+\d+ −\d+\)/, 'the diff comes first');
    const written = json(ws, '.claude/settings.json');
    assert.deepEqual(written.permissions, existing.permissions);
    assert.deepEqual(written.hooks.PreToolUse, existing.hooks.PreToolUse);
    const ours = { hooks: [{ type: 'command', command: cmd('claude-code', ws), timeout: 600 }] };
    assert.deepEqual(written.hooks.Stop, [...existing.hooks.Stop, ours]);
    assert.deepEqual(written.hooks.SubagentStop, [ours]);
    assert.deepEqual(written.hooks.UserPromptSubmit, [ours]);
    assert.match(read(ws, '.claude/settings.json'), /^\{\n {4}"permissions"/, 'keeps the file’s indentation');
    assert.deepEqual(json(ws, '.mcp.json'), { mcpServers: { 'ideal-state': { command: NODE, args: [CLI, 'mcp'] } } }, 'the MCP server in Claude Code’s project file');

    const again = await install(ws, ['claude-code', '--yes']);
    assert.equal(again.code, 0);
    assert.match(again.out, /already set for Claude Code; nothing to change/);

    // A new launcher updates the gate's own entry in place; it does not add a second one.
    await install(ws, ['claude-code', '--yes', '--command', 'ideal-state', '--max-blocks', '5']);
    const updated = json(ws, '.claude/settings.json');
    assert.equal(updated.hooks.Stop.length, 2);
    assert.equal(updated.hooks.Stop[1].hooks[0].command, `ideal-state gate --host claude-code --workspace ${ws} --deadline 600 --max-blocks 5`);
  });

  it('codex: .codex/hooks.json in Claude Code’s format with --host codex, and names the trust step (trusted project, then /hooks)', async () => {
    const ws = tmp();
    const r = await install(ws, ['codex', '--yes']);
    assert.equal(r.code, 0, r.err);
    const hooks = json(ws, '.codex/hooks.json');
    assert.deepEqual(hooks.hooks.Stop, [{ hooks: [{ type: 'command', command: cmd('codex', ws), timeout: 600 }] }]);
    assert.deepEqual(hooks.hooks.UserPromptSubmit, hooks.hooks.Stop);
    assert.match(r.out, /Trust step: Codex runs a project hook only in a trusted project .*\/hooks/);
    assert.equal(fs.readFileSync(path.join(ws, '.codex', 'config.toml'), 'utf8'), `[mcp_servers.ideal-state]\ncommand = ${JSON.stringify(NODE)}\nargs = [${JSON.stringify(CLI)}, "mcp"]\n`, 'the MCP server in Codex’s project config.toml');
  });

  it('codex: the MCP table merged into an existing config.toml: other settings, comments and the table’s own other keys stay; installing again updates it in place', async () => {
    const ws = tmp();
    fs.mkdirSync(path.join(ws, '.codex'));
    const file = path.join(ws, '.codex', 'config.toml');
    fs.writeFileSync(file, ['# mine', 'model = "o3"', '', '[mcp_servers.ideal-state]', 'command = "old"', 'args = [', '  "x",', ']', 'startup_timeout_sec = 30', '', '[mcp_servers.other]', 'command = "other"', ''].join('\n'));
    assert.equal((await install(ws, ['codex', '--yes', '--command', 'node "/a b/cli.js"'])).code, 0);
    const expected = ['# mine', 'model = "o3"', '', '[mcp_servers.ideal-state]', 'command = "node"', 'args = ["/a b/cli.js", "mcp"]', 'startup_timeout_sec = 30', '', '[mcp_servers.other]', 'command = "other"', ''].join('\n');
    assert.equal(fs.readFileSync(file, 'utf8'), expected);
    const again = await install(ws, ['codex', '--yes', '--command', 'node "/a b/cli.js"']);
    assert.equal(again.code, 0);
    assert.equal(fs.readFileSync(file, 'utf8'), expected, 'a second install changes nothing');
    fs.writeFileSync(file, 'mcp_servers = { ideal-state = { command = "x" } }\n');
    const inline = await install(ws, ['codex', '--yes']);
    assert.match(inline.err, /config\.toml:1:1: error: mcp_servers is written as dotted keys or an inline table here; it is left as it is/);
    assert.equal(fs.readFileSync(file, 'utf8'), 'mcp_servers = { ideal-state = { command = "x" } }\n');
  });

  it('gemini and qwen: milliseconds (600000), AfterAgent/BeforeAgent for Gemini, Stop/UserPromptSubmit for Qwen, MCP in the same settings file', async () => {
    const ws = tmp();
    assert.equal((await install(ws, ['gemini', '--yes'])).code, 0);
    const g = json(ws, '.gemini/settings.json');
    assert.deepEqual(g.hooks.AfterAgent, [{ hooks: [{ type: 'command', command: cmd('gemini', ws), timeout: 600000 }] }]);
    assert.deepEqual(Object.keys(g.hooks), ['AfterAgent', 'BeforeAgent']);
    assert.deepEqual(g.mcpServers['ideal-state'], { command: NODE, args: [CLI, 'mcp'] });
    assert.equal((await install(ws, ['qwen', '--yes'])).code, 0);
    const q = json(ws, '.qwen/settings.json');
    assert.equal(q.hooks.Stop[0].hooks[0].timeout, 600000, 'Qwen reads 1000 or more as milliseconds in every version');
    assert.deepEqual(Object.keys(q.hooks), ['Stop', 'UserPromptSubmit']);
  });

  it('vscode and copilot share .github/hooks/ideal-state.json: Stop for VS Code, agentStop and userPromptSubmitted (bash, timeoutSec) for Copilot CLI', async () => {
    const ws = tmp();
    const r = await install(ws, ['vscode', '--yes', '--no-mcp']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^--- \/dev\/null\n\+\+\+ \.github\/hooks\/ideal-state\.json/);
    assert.equal((await install(ws, ['copilot', '--yes'])).code, 0);
    const file = json(ws, '.github/hooks/ideal-state.json');
    assert.deepEqual(file.hooks.Stop, [{ type: 'command', command: cmd('vscode', ws), timeout: 600 }]);
    assert.deepEqual(file.hooks.agentStop, [{ type: 'command', bash: cmd('copilot', ws), timeoutSec: 600 }]);
    // Copilot CLI's prompt payload names no event: the command line says it records the baseline.
    assert.deepEqual(file.hooks.userPromptSubmitted, [{ type: 'command', bash: `${cmd('copilot', ws)} --prompt`, timeoutSec: 600 }]);
    assert.equal(file.version, 1);
    assert.equal(json(ws, '.mcp.json').mcpServers['ideal-state'].type, 'local', 'Copilot CLI reads .mcp.json');
  });

  it('cursor: a stop hook with loop_limit from --max-blocks; opencode: the plugin file the product ships', async () => {
    const ws = tmp();
    assert.equal((await install(ws, ['cursor', '--yes', '--max-blocks', '4'])).code, 0);
    assert.deepEqual(json(ws, '.cursor/hooks.json'), { version: 1, hooks: { stop: [{ command: cmd('cursor', ws, ' --max-blocks 4'), loop_limit: 4 }] } });
    assert.equal((await install(ws, ['opencode', '--yes'])).code, 0);
    const plugin = read(ws, '.opencode/plugin/ideal-state-gate.js');
    assert.ok(plugin.includes(`const COMMAND = ${JSON.stringify(cmd('opencode', ws))};`));
    assert.match(plugin, /event\.type !== 'session\.idle'/);
    assert.match(plugin, /client\.session\.prompt\(/);
    assert.deepEqual(json(ws, 'opencode.json').mcp['ideal-state'], { type: 'local', command: [NODE, CLI, 'mcp'], enabled: true });
  });

  it('kiro: an Agent Stop hook file with a shell command, keeping the user’s enabled flag', async () => {
    const ws = tmp();
    assert.equal((await install(ws, ['kiro', '--yes'])).code, 0);
    const hook = json(ws, '.kiro/hooks/ideal-state-gate.kiro.hook');
    assert.deepEqual([hook.enabled, hook.when, hook.then], [true, { type: 'agentStop' }, { type: 'runCommand', command: cmd('kiro', ws), timeout: 600 }]);
    fs.writeFileSync(path.join(ws, '.kiro/hooks/ideal-state-gate.kiro.hook'), JSON.stringify({ ...hook, enabled: false }));
    await install(ws, ['kiro', '--yes', '--command', 'node /opt/ideal-state/dist/cli.js']);
    const after = json(ws, '.kiro/hooks/ideal-state-gate.kiro.hook');
    assert.equal(after.enabled, false);
    assert.equal(after.then.command, `node /opt/ideal-state/dist/cli.js gate --host kiro --workspace ${ws} --deadline 600`);
  });

  it('cline: writes no hook and says plainly that Cline cannot be held; offers the MCP server', async () => {
    const ws = tmp();
    const r = await install(ws, ['cline', '--yes']);
    assert.equal(r.code, 0, r.err);
    assert.equal(fs.existsSync(path.join(ws, '.clinerules')), false, 'no TaskComplete script');
    assert.match(r.out, /Cline: no stop gate: Cline runs no hook before its agent stops/);
    assert.match(r.out, /cline_mcp_settings\.json.*"ideal-state"/);
    assert.doesNotMatch(r.out, /now runs/);
  });

  it('--detect installs for each host whose configuration folder exists, and says when there is none', async () => {
    const ws = tmp();
    const none = await install(ws, ['--detect', '--yes']);
    assert.equal(none.code, 1);
    assert.match(none.err, /no host's configuration folder/);
    fs.mkdirSync(path.join(ws, '.claude'));
    fs.mkdirSync(path.join(ws, '.gemini'));
    const r = await install(ws, ['--detect', '--yes', '--no-mcp']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /found: Gemini CLI \(\.gemini\), Claude Code \(\.claude\)/);
    assert.ok(fs.existsSync(path.join(ws, '.claude/settings.json')));
    assert.ok(fs.existsSync(path.join(ws, '.gemini/settings.json')));
    assert.equal(fs.existsSync(path.join(ws, '.codex')), false);
  });

  it('a settings file with comments or bad JSON gets an error with its line, and is not rewritten', async () => {
    const ws = tmp();
    fs.mkdirSync(path.join(ws, '.claude'));
    const commented = '{\n  // my hooks\n  "hooks": {}\n}\n';
    fs.writeFileSync(path.join(ws, '.claude/settings.json'), commented);
    const r = await install(ws, ['claude-code', '--yes']);
    assert.equal(r.code, 2);
    assert.match(r.err, /^\.claude\/settings\.json:2:3: error: it has comments or trailing commas, which rewriting it would lose; it is left as it is/);
    assert.equal(read(ws, '.claude/settings.json'), commented);

    const broken = '{\n  "hooks": {\n    "Stop": [\n  }\n}\n';
    fs.writeFileSync(path.join(ws, '.claude/settings.json'), broken);
    const b = await install(ws, ['claude-code', '--yes']);
    assert.equal(b.code, 2);
    assert.match(b.err, /^\.claude\/settings\.json:4:3: error: it is not valid JSON/);
    assert.equal(read(ws, '.claude/settings.json'), broken);

    fs.writeFileSync(path.join(ws, '.claude/settings.json'), '{"hooks": {"Stop": {}}}');
    assert.match((await install(ws, ['claude-code', '--yes'])).err, /"hooks\.Stop" is not a list; it is left as it is/);
  });

  it('asks before writing: "n" writes nothing; without a terminal and without --yes nothing is written', async () => {
    const ws = tmp();
    const no = await install(ws, ['vscode'], 'n');
    assert.equal(no.code, 1);
    assert.match(no.out, /\+\+\+ \.github\/hooks\/ideal-state\.json/, 'the diff was shown');
    assert.equal(fs.existsSync(path.join(ws, '.github/hooks/ideal-state.json')), false);
    const noTerminal = await install(ws, ['vscode']);
    assert.equal(noTerminal.code, 1);
    assert.match(noTerminal.err, /no terminal to ask; pass --yes/);
    const yes = await install(ws, ['vscode'], 'y');
    assert.equal(yes.code, 0);
    assert.ok(fs.existsSync(path.join(ws, '.github/hooks/ideal-state.json')));
  });
});
