import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { StoreHost } from '../store-host';
import { dashboardSource } from './dashboard-data';
import { DASHBOARD_VIEW_TYPE, DashboardPanel, type DashboardState } from './dashboard-panel';

/**
 * "Ideal State: Open Dashboard": one panel over this window's store, brought back after a
 * reload by its serializer. The figures are summed by the same pure module the command line's
 * `ideal-state dashboard` uses (src/app/dashboard), loaded with the engine on first use.
 */
export class Dashboards implements vscode.WebviewPanelSerializer<DashboardState>, vscode.Disposable {
  private panel: DashboardPanel | undefined;
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly stores: StoreHost,
    private readonly log: Logger,
  ) {
    this.disposables = [vscode.window.registerWebviewPanelSerializer(DASHBOARD_VIEW_TYPE, this), vscode.commands.registerCommand('idealState.openDashboard', () => this.open())];
  }

  open(): DashboardPanel {
    if (this.panel) {
      this.panel.panel.reveal();
      void this.panel.send().catch(() => undefined);
      return this.panel;
    }
    const panel = vscode.window.createWebviewPanel(DASHBOARD_VIEW_TYPE, 'Ideal State Dashboard', vscode.ViewColumn.Active, { enableScripts: true, enableFindWidget: true });
    return this.adopt(panel);
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel): Promise<void> {
    this.adopt(panel);
  }

  private adopt(webviewPanel: vscode.WebviewPanel): DashboardPanel {
    this.panel?.dispose();
    const panel = new DashboardPanel(webviewPanel, this.extensionUri, dashboardSource(this.stores, this.extensionUri, this.log), this.log);
    this.panel = panel;
    panel.onDidDispose(() => {
      if (this.panel === panel) this.panel = undefined;
    });
    return panel;
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

export function registerDashboard(context: vscode.ExtensionContext, stores: StoreHost, log: Logger): Dashboards {
  return new Dashboards(context.extensionUri, stores, log);
}
