import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import { engine } from '../engine';
import { cliTakesScope, confirmation, hookNode, hostRows, installArgs, readPreview, type GateHostInfo, type GateScope } from './plan';
import { runCli } from './run-cli';

/**
 * What the command takes from a caller (the extension's tests; a keybinding): the host and the
 * scope, which skip their picks. `answer` and `untrusted` answer the modal and stand for
 * Restricted Mode, and count only in ExtensionMode.Test: anyone else gets the modal.
 */
export interface GateInstallArgs {
  host?: string;
  scope?: GateScope;
  answer?: string;
  untrusted?: boolean;
}

export interface GateInstallResult {
  ok: boolean;
  message: string;
  /** The modal as shown: what was asked before anything was written. */
  asked?: { message: string; detail: string };
}

const INSTALL = 'Install';
/** The bundled command line's own check of the hook (`LAUNCHER --version`) is bounded at 30 s; a preview or an install is well inside a minute. */
const CLI_TIMEOUT_MS = 90_000;

/** "Ideal State: Install the Done Gate for…": a host of this workspace, through the command line inside this extension. */
export function registerGateInstall(context: vscode.ExtensionContext, log: Logger): vscode.Disposable {
  const testing = context.extensionMode === vscode.ExtensionMode.Test;
  return vscode.commands.registerCommand('idealState.installDoneGate', async (args?: GateInstallArgs): Promise<GateInstallResult> => {
    const given = args && typeof args === 'object' ? args : {};
    try {
      const result = await install(context.extensionPath, given, testing, log);
      if (result.message) {
        if (result.ok) void vscode.window.showInformationMessage(`Ideal State: ${result.message}`);
        else void vscode.window.showWarningMessage(`Ideal State: ${result.message}`);
      }
      return result;
    } catch (error) {
      log.error(`installing the done gate failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      const message = `Installing the done gate failed: ${error instanceof Error ? error.message : String(error)}. See the log (Ideal State: Show Log).`;
      void vscode.window.showErrorMessage(`Ideal State: ${message}`);
      return { ok: false, message };
    }
  });
}

async function install(extensionPath: string, args: GateInstallArgs, testing: boolean, log: Logger): Promise<GateInstallResult> {
  // The gate runs commands on every stop of the agent: installing it is trusting this workspace.
  if (!vscode.workspace.isTrusted || (testing && args.untrusted === true)) return { ok: false, message: 'Restricted Mode: the done gate is not installed in a workspace you have not trusted. Trust it first (Manage Workspace Trust).' };
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  if (!folder) return { ok: false, message: 'Open the workspace folder to install the done gate into.' };
  const workspace = folder.uri.fsPath;

  const hosts: GateHostInfo[] = engine().HOST_ADAPTERS.map((h) => ({ id: h.id, name: h.name, configFolder: h.configFolder, hookFile: 'file' in h.install ? h.install.file : undefined, ...(h.install.kind === 'none' ? { noHookWhy: h.install.why } : {}) }));
  const present = new Set(hosts.filter((h) => isDirectory(path.join(workspace, h.configFolder))).map((h) => h.id));
  const rows = hostRows(hosts, present);
  let hostId = args.host;
  if (hostId === undefined) {
    const picked = await vscode.window.showQuickPick(
      rows.map((r) => ({ label: r.label, description: r.description, detail: r.detail, id: r.id })),
      { title: 'Ideal State: Install the Done Gate for…', placeHolder: present.size > 0 ? 'Hosts found in this workspace come first' : 'No host\'s configuration folder in this workspace: pick the agent you use', matchOnDescription: true, ignoreFocusOut: true },
    );
    if (!picked) return { ok: false, message: '' };
    hostId = picked.id;
  }
  const host = hosts.find((h) => h.id === hostId);
  if (!host) return { ok: false, message: `No agent host "${hostId}": one of ${hosts.map((h) => h.id).join(', ')}.` };
  if (host.hookFile === undefined) return { ok: false, message: `${host.name} runs no stop hook (${host.noHookWhy ?? 'no hook'}), so there is no done gate to install for it.` };

  const cli = path.join(extensionPath, 'dist', 'cli.js');
  const node = hookNode({ execPath: process.execPath, electron: process.versions.electron, pathVar: process.env.PATH ?? '', isFile });
  if (!node.ok) return { ok: false, message: node.message };

  const usage = await runCli(node.node, [cli, 'gate', 'install', '--help'], { cwd: workspace, timeoutMs: CLI_TIMEOUT_MS });
  const userOffered = cliTakesScope(usage.stdout);
  let scope: GateScope = args.scope ?? 'workspace';
  if (args.scope === undefined && userOffered) {
    const picked = await vscode.window.showQuickPick(
      [
        { label: 'For your user', description: 'outside the workspace: safer', detail: 'the host\'s user settings, outside the workspace the agent works in', scope: 'user' as const },
        { label: 'In this workspace', description: `${host.hookFile}`, detail: 'a file the agent can write: it can switch the gate off', scope: 'workspace' as const },
      ],
      { title: `Ideal State: Install the Done Gate for ${host.name}: where`, ignoreFocusOut: true },
    );
    if (!picked) return { ok: false, message: '' };
    scope = picked.scope;
  }
  if (scope === 'user' && !userOffered) return { ok: false, message: 'The command line inside this extension installs only into the workspace (it has no --scope).' };

  const previewRun = await runCli(node.node, installArgs(cli, host.id, workspace, scope, false), { cwd: workspace, timeoutMs: CLI_TIMEOUT_MS });
  const preview = readPreview(previewRun.code, previewRun.stdout, previewRun.stderr);
  if (!preview.ok) {
    log.warn(`gate install ${host.id} refused: ${preview.message}`);
    return { ok: false, message: `The done gate for ${host.name} is not installed: ${preview.message}` };
  }
  if (preview.nothingToDo) return { ok: true, message: `The done gate for ${host.name} is already installed here; nothing to change.` };

  const asked = confirmation(host.name, scope, preview, node, cli, userOffered);
  const answer = testing && args.answer !== undefined ? args.answer : await vscode.window.showWarningMessage(asked.message, { modal: true, detail: asked.detail }, INSTALL);
  if (answer !== INSTALL) return { ok: false, message: '', asked };

  const written = await runCli(node.node, installArgs(cli, host.id, workspace, scope, true), { cwd: workspace, timeoutMs: CLI_TIMEOUT_MS });
  if (written.code !== 0) {
    const said = written.stderr.trim() || written.stdout.trim();
    log.warn(`gate install ${host.id} --yes ended with exit ${written.code}: ${said}`);
    return { ok: false, message: `The done gate for ${host.name} is not installed: ${said.split('\n').at(-1) ?? `exit ${written.code}`}`, asked };
  }
  log.info(`installed the done gate for ${host.name} (${scope}): ${preview.files.join(', ')}\n${written.stdout.trim()}`);
  const trust = written.stdout.split('\n').find((l) => l.startsWith('Trust step: '));
  return { ok: true, message: `Installed the done gate for ${host.name}: ${preview.files.join(', ')}.${trust ? ` ${trust}` : ''}`, asked };
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
