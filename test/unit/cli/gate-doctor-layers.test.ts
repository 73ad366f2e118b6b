import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { readClaudeCode } from '../../../src/app/gate/doctor/claude-code';
import { gateDoctorCommand } from '../../../src/cli/gate/doctor';
import { gateInstallCommand } from '../../../src/cli/gate/install';
import { BUILT_CLI } from '../support/cli-helpers';

/**
 * `gate doctor` reads Claude Code's settings the way Claude Code does: every layer, the exact
 * Stop key, disableAllHooks, the other Stop hooks and `env`; "would block" only after a dry stop
 * through that. HOME points at a folder of the test, never the person's ~/.claude.
 */
describe('command line: gate doctor reads Claude Code’s effective settings', function () {
  this.timeout(120_000);
  let home: string;
  let savedHome: string | undefined;

  let savedStateHome: string | undefined;

  beforeEach(() => {
    savedHome = process.env.HOME;
    savedStateHome = process.env.XDG_STATE_HOME;
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-doctor-home-'));
    process.env.HOME = home;
    // Where a refused state folder variable leaves the gate: the default folder, the test's own here.
    process.env.XDG_STATE_HOME = path.join(home, '.local', 'state');
  });
  afterEach(() => {
    if (savedHome === undefined) delete process.env.HOME;
    else process.env.HOME = savedHome;
    if (savedStateHome === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = savedStateHome;
    fs.rmSync(home, { recursive: true, force: true });
  });

  /** A workspace whose one criterion fails, with the gate installed for Claude Code. */
  async function installed(): Promise<string> {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-doctor-layers-'));
    fs.mkdirSync(path.join(ws, '.ideal-state', 'prds'), { recursive: true });
    const prd = ['---', 'prd: true', 'id: PRD-20261128-layers', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# Layers', '', '## Ideal State Criteria', '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md', '', '## LOG', ''];
    fs.writeFileSync(path.join(ws, '.ideal-state', 'prds', 'PRD-20261128-layers.md'), prd.join('\n'));
    const r = run();
    assert.equal(await gateInstallCommand(['claude-code', '--yes', '--no-mcp', '--workspace', ws, '--command', `${JSON.stringify(process.execPath)} ${JSON.stringify(BUILT_CLI)}`], r.io), 0, r.err.join('\n'));
    return ws;
  }

  function run() {
    const out: string[] = [];
    const err: string[] = [];
    return { io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s) }, out, err };
  }

  async function doctor(ws: string): Promise<string> {
    const r = run();
    await gateDoctorCommand(['--workspace', ws], r.io);
    return [...r.out, ...r.err].join('\n');
  }

  function local(ws: string, settings: unknown): void {
    fs.writeFileSync(path.join(ws, '.claude', 'settings.local.json'), JSON.stringify(settings, null, 2));
  }

  it('the plain install: would block, after a dry stop; names the workspace settings as a way around it', async () => {
    const text = await doctor(await installed());
    assert.match(text, /^Claude Code: would block \(\.claude\/settings\.json: /m, text);
    assert.match(text, /Bypassable: \.claude\/settings\.local\.json and \.claude\/settings\.json are in the workspace, writable by the agent; Claude Code reloads its settings mid-session/, text);
  });

  it('disableAllHooks: true in .claude/settings.local.json: would let the agent stop, and names the file', async () => {
    const ws = await installed();
    local(ws, { disableAllHooks: true });
    const text = await doctor(ws);
    assert.match(text, /^Claude Code: would let the agent stop: disableAllHooks in \.claude\/settings\.local\.json \(the gate never runs\)$/m, text);
    assert.doesNotMatch(text, /Claude Code: would block/);
  });

  it('disableAllHooks in the user’s ~/.claude/settings.json (HOME) counts too', async () => {
    const ws = await installed();
    fs.mkdirSync(path.join(home, '.claude'));
    fs.writeFileSync(path.join(home, '.claude', 'settings.json'), '{"disableAllHooks": true}');
    assert.match(await doctor(ws), /^Claude Code: would let the agent stop: disableAllHooks in ~\/\.claude\/settings\.json/m);
  });

  it('the Stop key renamed to "Stop_": not "would block", and says where the gate went', async () => {
    const ws = await installed();
    const file = path.join(ws, '.claude', 'settings.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"Stop":', '"Stop_":'));
    const text = await doctor(ws);
    assert.doesNotMatch(text, /Claude Code: would block/, text);
    assert.match(text, /^Claude Code: would let the agent stop: no hooks\.Stop entry in any settings layer runs the gate \(it is under hooks\."Stop_" in \.claude\/settings\.json/m, text);
  });

  it('a settings file that is not JSON is named with its line', async () => {
    const ws = await installed();
    fs.writeFileSync(path.join(ws, '.claude', 'settings.local.json'), '{\n  "env": {\n    "A": 1,\n  }\n}\n');
    assert.match(await doctor(ws), /Note: \.claude\/settings\.local\.json is not valid JSON \(line 4: .*\).*: Claude Code may refuse it/);
  });

  it('env.PATH in .claude/settings.local.json is named, and the dry stop runs with it', async () => {
    const ws = await installed();
    local(ws, { env: { PATH: path.join(ws, 'bin') } });
    const text = await doctor(ws);
    assert.match(text, /Bypassable: env\.PATH in \.claude\/settings\.local\.json: every program a check names without a path/, text);
    assert.match(text, /^Claude Code: would block /m, 'the installed command has absolute paths: the fake PATH does not reach it');
  });

  it('env that re-points the state folder into the workspace is refused, so every stop blocks, whether or not it replaces the person\'s own; NODE_OPTIONS with --require is a way around the gate', async () => {
    const ws = await installed();
    local(ws, { env: { IDEAL_STATE_STATE_DIR: path.join(ws, 'state'), NODE_OPTIONS: '--require ./hook.cjs', npm_config_script_shell: '/bin/sh' } });
    // This process (as the host) starts with a state folder of its own: the refused variable replaces it.
    const own = process.env.IDEAL_STATE_STATE_DIR!;
    const replaced = await doctor(ws);
    const refused = /Note: env\.IDEAL_STATE_STATE_DIR in \.claude\/settings\.local\.json is refused by the gate \(names a folder inside the workspace .*, where the agent can write\): every stop is blocked, saying so, until it is removed/;
    assert.match(replaced, refused, replaced);
    assert.doesNotMatch(replaced, /Bypassable: env\.IDEAL_STATE_STATE_DIR/, replaced);
    delete process.env.IDEAL_STATE_STATE_DIR;
    let text: string;
    try {
      text = await doctor(ws);
    } finally {
      process.env.IDEAL_STATE_STATE_DIR = own;
    }
    assert.match(text, refused, text);
    assert.match(text, /Bypassable: env\.NODE_OPTIONS in \.claude\/settings\.local\.json: Node loads what it names into the gate itself/, text);
    assert.match(text, /Note: env\.npm_config_script_shell in \.claude\/settings\.local\.json is harmless/, text);
  });

  it('env that moves the state folder outside the workspace is refused by the gate (the workspace names it), and the doctor says every stop then blocks', async () => {
    const ws = await installed();
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-doctor-elsewhere-'));
    local(ws, { env: { IDEAL_STATE_STATE_DIR: elsewhere } });
    const text = await doctor(ws);
    assert.match(text, /Note: env\.IDEAL_STATE_STATE_DIR in \.claude\/settings\.local\.json is refused by the gate \(is set by \.claude\/settings\.local\.json in the workspace, which the agent can write\): every stop is blocked, saying so, until it is removed/, text);
    assert.doesNotMatch(text, /Bypassable: env\.IDEAL_STATE_STATE_DIR/, text);
    fs.rmSync(elsewhere, { recursive: true, force: true });
  });

  it('a second Stop hook is listed and named as a way around the gate', async () => {
    const ws = await installed();
    local(ws, { hooks: { Stop: [{ hooks: [{ type: 'command', command: `echo '{"continue": false}'` }] }] } });
    const text = await doctor(ws);
    assert.match(text, /Note: another Stop hook: `echo '\{"continue": false\}'` \(\.claude\/settings\.local\.json\)/, text);
    assert.match(text, /Bypassable: the Stop hook `echo '\{"continue": false\}'` in \.claude\/settings\.local\.json runs beside the gate.*its command line answers so/, text);
    assert.match(text, /^Claude Code: would block /m);
  });

  it('a hook whose program is found through PATH is named as bypassable', async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-doctor-layers-'));
    fs.mkdirSync(path.join(ws, '.claude'));
    fs.writeFileSync(path.join(ws, '.claude', 'settings.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: `node ${BUILT_CLI} gate --host claude-code --workspace ${ws}` }] }] } }));
    assert.match(await doctor(ws), /Bypassable: the hook's program `node` is looked up through PATH/);
  });

  it('managed settings: allowManagedHooksOnly runs no workspace hook; a managed gate is not turned off by a workspace disableAllHooks', async () => {
    const ws = await installed();
    const managed = path.join(home, 'managed-settings.json');
    fs.writeFileSync(managed, JSON.stringify({ allowManagedHooksOnly: true }));
    const off = await readClaudeCode(ws, { managedFile: managed });
    assert.match(off!.neverRuns.join('\n'), new RegExp(`allowManagedHooksOnly in ${managed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: only managed hooks run`));
    fs.writeFileSync(managed, fs.readFileSync(path.join(ws, '.claude', 'settings.json')));
    local(ws, { disableAllHooks: true });
    const on = await readClaudeCode(ws, { managedFile: managed });
    assert.deepEqual(on!.neverRuns, []);
    assert.equal(on!.installedIn, managed);
    assert.doesNotMatch(on!.bypasses.join('\n'), /are in the workspace, writable by the agent/);
  });

  it('a gate in ~/.claude/settings.json that holds another workspace is not this one’s', async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-doctor-layers-'));
    const other = await installed();
    fs.mkdirSync(path.join(home, '.claude'));
    fs.copyFileSync(path.join(other, '.claude', 'settings.json'), path.join(home, '.claude', 'settings.json'));
    const found = await readClaudeCode(ws);
    assert.match(found!.neverRuns.join('\n'), new RegExp(`the gate in ~/\\.claude/settings\\.json holds ${other.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, not this workspace`));
    assert.deepEqual((await readClaudeCode(other))!.neverRuns, [], 'the workspace it names is held');
  });

  it('a FIFO in place of .claude/settings.local.json is named, never waited on', async () => {
    const ws = await installed();
    execFileSync('mkfifo', [path.join(ws, '.claude', 'settings.local.json')]);
    const found = await readClaudeCode(ws);
    assert.match(found!.notes.join('\n'), /\.claude\/settings\.local\.json is not a regular file \(a FIFO\)/);
  });

  it('other hosts: the exact event key the host reads, not the command anywhere in the file', async () => {
    const ws = await installed();
    for (const host of ['codex', 'gemini']) {
      const r = run();
      assert.equal(await gateInstallCommand([host, '--yes', '--no-mcp', '--workspace', ws, '--command', `${JSON.stringify(process.execPath)} ${JSON.stringify(BUILT_CLI)}`], r.io), 0, r.err.join('\n'));
    }
    const codex = path.join(ws, '.codex', 'hooks.json');
    fs.writeFileSync(codex, fs.readFileSync(codex, 'utf8').replace('"Stop":', '"Stop_":'));
    fs.appendFileSync(path.join(ws, '.gemini', 'settings.json'), '}');
    const text = await doctor(ws);
    assert.match(text, /^Codex: would let the agent stop: no hooks\.Stop entry runs the gate, and Codex reads hooks\.Stop \(it is under hooks\."Stop_" in \.codex\/hooks\.json\)/m, text);
    assert.match(text, /^Gemini CLI: would let the agent stop: \.gemini\/settings\.json names the gate but does not parse/m, text);
    assert.match(text, /Note: \.gemini\/settings\.json is not valid JSON \(line \d+/, text);
  });
});
