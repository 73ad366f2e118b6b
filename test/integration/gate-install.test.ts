import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { runHookCommand } from '../../src/app/gate/hook-command';
import { activateIdealState, EXTENSION_ID } from './ideal-state';

interface Result {
  ok: boolean;
  message: string;
  asked?: { message: string; detail: string };
}

/**
 * "Ideal State: Install the Done Gate for…" in the real extension host: the command runs the
 * command line inside the installed extension (dist/cli.js), shows what it will write in a
 * modal (answered here through the test-only `answer`), and the hook it wrote answers a stop
 * as Claude Code would send it. Nothing is written when the modal is closed or the workspace is
 * not trusted.
 */
describe('Install the Done Gate for… from the editor', () => {
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const settings = () => path.join(folder(), '.claude', 'settings.json');
  const install = (args: object) => vscode.commands.executeCommand<Result>('idealState.installDoneGate', args);
  const clean = () => {
    fs.rmSync(path.join(folder(), '.claude'), { recursive: true, force: true });
    fs.rmSync(path.join(folder(), '.mcp.json'), { force: true });
  };

  before(async () => {
    await activateIdealState();
    clean();
  });
  after(clean);

  it('is refused in Restricted Mode, writing nothing', async () => {
    const result = await install({ host: 'claude-code', scope: 'workspace', answer: 'Install', untrusted: true });
    assert.equal(result.ok, false);
    assert.match(result.message, /Restricted Mode/);
    assert.equal(fs.existsSync(settings()), false);
  });

  it('writes nothing when the modal is closed, after showing the file and the hook command', async () => {
    const result = await install({ host: 'claude-code', scope: 'workspace', answer: 'Cancel' });
    assert.equal(result.ok, false);
    assert.ok(result.asked, 'the modal was shown');
    assert.match(result.asked.detail, /Files: \.claude\/settings\.json, \.mcp\.json/);
    assert.match(result.asked.detail, /Hook command: .+ gate --host claude-code --workspace /);
    assert.match(result.asked.detail, /an agent can switch the gate off/);
    assert.equal(fs.existsSync(settings()), false);
  });

  it('installs through the bundled command line, and the written hook answers a dry stop', async () => {
    const result = await install({ host: 'claude-code', scope: 'workspace', answer: 'Install' });
    assert.equal(result.ok, true, result.message);
    const written = JSON.parse(fs.readFileSync(settings(), 'utf8')) as { hooks: { Stop: { hooks: { command: string; timeout: number }[] }[] } };
    const command = written.hooks.Stop[0]!.hooks[0]!.command;
    const extensionCli = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'cli.js');
    assert.ok(command.includes(extensionCli), `the hook runs the extension's own command line: ${command}`);
    assert.ok(result.asked!.detail.includes(`Hook command: ${command}`), 'the modal named the command that was written');
    // A Stop as Claude Code sends it (https://code.claude.com/docs/en/hooks "Stop input"), run through a shell as the host runs it.
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-gate-install-it-'));
    const payload = JSON.stringify({ session_id: 'it-gate-install', transcript_path: '', cwd: folder(), hook_event_name: 'Stop', stop_hook_active: false });
    // Its state and the report it leaves for the store go to folders of this test's own, never the user's.
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-gate-install-data-'));
    const run = await runHookCommand(command, payload, { cwd: folder(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state, XDG_DATA_HOME: data }, timeoutMs: 120_000 });
    assert.equal(run.timedOut, false);
    assert.equal(run.code, 0, `the gate answered with exit 0: ${run.stderr}`);
    const answer = run.stdout.trim();
    if (answer !== '') {
      const parsed = JSON.parse(answer) as Record<string, unknown>;
      assert.ok(parsed.decision === 'block' || typeof parsed.systemMessage === 'string', `a Claude Code answer: ${answer}`);
    }
    fs.rmSync(state, { recursive: true, force: true });

    const again = await install({ host: 'claude-code', scope: 'workspace', answer: 'Install' });
    assert.equal(again.ok, true);
    assert.match(again.message, /already installed here; nothing to change/);
  });

  it('names the hosts it knows when given one it does not', async () => {
    const result = await install({ host: 'no-such-agent', scope: 'workspace', answer: 'Install' });
    assert.equal(result.ok, false);
    assert.match(result.message, /No agent host "no-such-agent": one of .*claude-code/);
  });
});
