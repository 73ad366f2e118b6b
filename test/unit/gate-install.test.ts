import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gateInstallCommand } from '../../src/cli/gate-install';

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-gate-install-'));
}

async function install(workspace: string, args: string[], answer?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await gateInstallCommand([...args, '--workspace', workspace], {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    ...(answer !== undefined ? { ask: async () => answer } : {}),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const read = (ws: string, rel: string) => fs.readFileSync(path.join(ws, rel), 'utf8');

describe('command line: gate install', () => {
  it('claude-code: adds a Stop hook to .claude/settings.json, keeping every setting and hook already there; twice changes nothing', async () => {
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
    const written = JSON.parse(read(ws, '.claude/settings.json'));
    assert.deepEqual(written.permissions, existing.permissions);
    assert.deepEqual(written.hooks.PreToolUse, existing.hooks.PreToolUse);
    assert.deepEqual(written.hooks.Stop, [...existing.hooks.Stop, { hooks: [{ type: 'command', command: 'ideal-state gate --host claude-code', timeout: 600 }] }]);
    assert.match(read(ws, '.claude/settings.json'), /^\{\n {4}"permissions"/, 'keeps the file’s indentation');

    const again = await install(ws, ['claude-code', '--yes']);
    assert.equal(again.code, 0);
    assert.match(again.out, /already runs the gate for Claude Code; nothing to change/);

    // A new launcher updates the gate's own entry in place; it does not add a second one.
    await install(ws, ['claude-code', '--yes', '--command', 'npx ideal-state', '--max-blocks', '5']);
    const updated = JSON.parse(read(ws, '.claude/settings.json'));
    assert.equal(updated.hooks.Stop.length, 2);
    assert.equal(updated.hooks.Stop[1].hooks[0].command, 'npx ideal-state gate --host claude-code --max-blocks 5');
  });

  it('vscode: writes .github/hooks/ideal-state.json with a Stop command hook', async () => {
    const ws = tmp();
    const r = await install(ws, ['vscode', '--yes']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^--- \/dev\/null\n\+\+\+ \.github\/hooks\/ideal-state\.json/);
    assert.deepEqual(JSON.parse(read(ws, '.github/hooks/ideal-state.json')), { hooks: { Stop: [{ type: 'command', command: 'ideal-state gate --host vscode', timeout: 600 }] } });
  });

  it('kiro: writes an Agent Stop hook file with a shell command, keeping the user’s enabled flag', async () => {
    const ws = tmp();
    assert.equal((await install(ws, ['kiro', '--yes'])).code, 0);
    const hook = JSON.parse(read(ws, '.kiro/hooks/ideal-state-gate.kiro.hook'));
    assert.deepEqual([hook.enabled, hook.when, hook.then], [true, { type: 'agentStop' }, { type: 'runCommand', command: 'ideal-state gate --host kiro', timeout: 600 }]);
    fs.writeFileSync(path.join(ws, '.kiro/hooks/ideal-state-gate.kiro.hook'), JSON.stringify({ ...hook, enabled: false }));
    await install(ws, ['kiro', '--yes', '--command', 'node /opt/ideal-state/dist/cli.js']);
    const after = JSON.parse(read(ws, '.kiro/hooks/ideal-state-gate.kiro.hook'));
    assert.equal(after.enabled, false);
    assert.equal(after.then.command, 'node /opt/ideal-state/dist/cli.js gate --host kiro');
  });

  it('cline: writes an executable TaskComplete script, and leaves one it did not write alone', async () => {
    const ws = tmp();
    assert.equal((await install(ws, ['cline', '--yes'])).code, 0);
    const file = path.join(ws, '.clinerules/hooks/TaskComplete');
    assert.match(fs.readFileSync(file, 'utf8'), /^#!\/usr\/bin\/env bash\n[\s\S]*\nexec ideal-state gate --host cline\n$/);
    if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o111, 0o111, 'executable');

    const other = tmp();
    fs.mkdirSync(path.join(other, '.clinerules/hooks'), { recursive: true });
    fs.writeFileSync(path.join(other, '.clinerules/hooks/TaskComplete'), '#!/bin/sh\necho \'{"cancel": false}\'\n');
    const r = await install(other, ['cline', '--yes']);
    assert.equal(r.code, 2);
    assert.match(r.err, /TaskComplete already exists and is not the gate's; it is left as it is/);
    assert.equal(read(other, '.clinerules/hooks/TaskComplete'), '#!/bin/sh\necho \'{"cancel": false}\'\n');
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
