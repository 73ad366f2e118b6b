import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HOST_ADAPTERS } from '../../../../src/app/gate/hosts';
import { cliTakesScope, confirmation, hookCommandIn, hookNode, hostRows, installArgs, readPreview, scopeRisk, type GateHostInfo } from '../../../../src/vscode/gate-install/plan';
import { REPO_ROOT } from '../../support/repo-root';

const ROOT = REPO_ROOT;
const CLI = path.join(ROOT, 'dist', 'cli.js');
const infos: GateHostInfo[] = HOST_ADAPTERS.map((h) => ({ id: h.id, name: h.name, configFolder: h.configFolder, hookFile: 'file' in h.install ? h.install.file : undefined }));

/** The pure parts of "Ideal State: Install the Done Gate for…" (src/vscode/gate-install/plan.ts). */
describe('Install the Done Gate for… (the pick and the confirmation)', () => {
  it('offers the hosts found in the workspace first, marked, and leaves out hosts that run no stop hook', () => {
    const rows = hostRows(infos, new Set(['gemini', 'claude-code']));
    assert.deepEqual(rows.slice(0, 2).map((r) => r.id).sort(), ['claude-code', 'gemini']);
    assert.ok(rows.slice(0, 2).every((r) => r.detected && r.description.startsWith('$(check) found ')));
    assert.ok(rows.slice(2).every((r) => !r.detected && r.description.startsWith('no ')));
    const noHook = HOST_ADAPTERS.filter((h) => h.install.kind === 'none').map((h) => h.id);
    for (const id of noHook) assert.ok(!rows.some((r) => r.id === id), `${id} runs no stop hook`);
    assert.equal(rows.length, HOST_ADAPTERS.length - noHook.length);
    assert.match(rows.find((r) => r.id === 'claude-code')!.detail, /\.claude\/settings\.json/);
  });

  it('runs the hook with the extension host\'s Node, but on the desktop (Electron) with the first node on PATH, and refuses with none', () => {
    assert.deepEqual(hookNode({ execPath: '/srv/node', electron: undefined, pathVar: '', isFile: () => false }), { ok: true, node: '/srv/node', why: 'the Node running the extension host' });
    const onPath = hookNode({ execPath: '/usr/share/code/code', electron: '37.2.0', pathVar: ['relative/bin', '/opt/a', '/opt/b'].join(path.delimiter), isFile: (f) => f === path.join('/opt/b', 'node') || f === path.join('relative/bin', 'node'), platform: 'linux' });
    assert.ok(onPath.ok && onPath.node === path.join('/opt/b', 'node'), JSON.stringify(onPath));
    const none = hookNode({ execPath: '/usr/share/code/code', electron: '37.2.0', pathVar: '/opt/a', isFile: () => false, platform: 'linux' });
    assert.ok(!none.ok && /No Node on PATH/.test(none.message) && /npm install -g ideal-state/.test(none.message));
  });

  it('previews without --yes and installs with it, naming the scope only outside the workspace', () => {
    assert.deepEqual(installArgs('/x/dist/cli.js', 'codex', '/w s', 'workspace', false), ['/x/dist/cli.js', 'gate', 'install', 'codex', '--workspace', '/w s']);
    assert.deepEqual(installArgs('/x/dist/cli.js', 'claude-code', '/w', 'user', true), ['/x/dist/cli.js', 'gate', 'install', 'claude-code', '--workspace', '/w', '--scope', 'user', '--yes']);
    assert.equal(cliTakesScope('Options:\n  --scope SCOPE     where the hook lives\n'), true);
    assert.equal(cliTakesScope('Options:\n  --detect   ...the --scope of it\n'), false);
  });

  it('reads the real command line\'s preview: the files, the hook command, and nothing written', () => {
    assert.ok(fs.existsSync(CLI), `${CLI} is built by node esbuild.mjs, which the unit tier runs first`);
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-gate-pick-'));
    let code = 0;
    let stdout = '';
    let stderr = '';
    try {
      stdout = execFileSync(process.execPath, installArgs(CLI, 'claude-code', ws, 'workspace', false), { cwd: ws, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    } catch (error) {
      const e = error as { status: number; stdout: string; stderr: string };
      ({ status: code, stdout, stderr } = e);
    }
    const preview = readPreview(code, stdout, stderr);
    assert.ok(preview.ok && !preview.nothingToDo, JSON.stringify({ code, stdout, stderr }));
    assert.deepEqual(preview.files, ['.claude/settings.json', '.mcp.json']);
    assert.equal(fs.existsSync(path.join(ws, '.claude', 'settings.json')), false, 'a preview writes nothing');
    const command = hookCommandIn(preview.changes);
    assert.equal(command, `${process.execPath} ${CLI} gate --host claude-code --workspace ${ws} --deadline 600`);
    const asked = confirmation('Claude Code', 'workspace', preview, { node: process.execPath, why: 'w' }, CLI, true);
    assert.match(asked.message, /^Install the done gate for Claude Code in this workspace\?$/);
    assert.ok(asked.detail.includes(`Hook command: ${command}`));
    assert.ok(asked.detail.includes('Files: .claude/settings.json, .mcp.json'));
    assert.ok(asked.detail.includes('an agent can switch the gate off there') && asked.detail.includes('for your user (outside the workspace) is safer'));
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('says the command line\'s refusal as it is, and an install already there as nothing to do', () => {
    assert.deepEqual(readPreview(2, '', 'ideal-state gate install: --scope user is not a place Cursor reads hooks from\n'), { ok: false, message: 'ideal-state gate install: --scope user is not a place Cursor reads hooks from' });
    assert.deepEqual(readPreview(0, '.claude/settings.json, .mcp.json already set for Claude Code; nothing to change.\n', ''), { ok: true, changes: '', files: [], warnings: [], nothingToDo: true });
    const r = readPreview(1, '', 'warning: /w/bin is inside the workspace\n');
    assert.ok(!r.ok && /exit 1/.test(r.message), 'a refusal that says nothing still says its exit');
    assert.match(scopeRisk('user', 'Codex', true), /outside the workspace/);
    assert.match(scopeRisk('workspace', 'Codex', false), /--scope/);
  });
});
