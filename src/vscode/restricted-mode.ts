import * as vscode from 'vscode';
import type { Logger } from '../model/log';

/** In an untrusted workspace, says so in the status bar and explains what is off. */
export function registerRestrictedModeIndicator(log: Logger): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('idealState.restricted', vscode.StatusBarAlignment.Left, 0);
  item.name = 'Ideal State: Restricted Mode';
  item.text = '$(shield) Ideal State: Restricted';
  item.tooltip = 'Restricted Mode: Ideal State shows stored runs, ratings and reflections, but runs no agent, no verification command and loads no workspace overrides. Trust this workspace to enable them.';
  item.command = 'workbench.trust.manage';
  const update = () => {
    void vscode.commands.executeCommand('setContext', 'idealState.restricted', !vscode.workspace.isTrusted);
    if (vscode.workspace.isTrusted) item.hide();
    else item.show();
  };
  if (!vscode.workspace.isTrusted) log.info('Restricted Mode: agent runs, verification commands and workspace overrides are off');
  update();
  return vscode.Disposable.from(item, vscode.workspace.onDidGrantWorkspaceTrust(update));
}
