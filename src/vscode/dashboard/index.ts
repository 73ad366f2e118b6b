import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { StoreHost } from '../store-host';
import { WebviewPanels } from '../webview';
import { dashboardSource } from './dashboard-data';
import { DASHBOARD_VIEW_TYPE, DashboardPanel, type DashboardState } from './dashboard-panel';

/**
 * "Ideal State: Open Dashboard": one panel over this window's store, brought back after a
 * reload by its serializer. The figures are summed by the same pure module the command line's
 * `ideal-state dashboard` uses (src/app/dashboard), loaded with the engine on first use, over this
 * window's store and the gate's verdicts from where the gate leaves them (dashboard-data.ts).
 */
export class Dashboards implements vscode.WebviewPanelSerializer<DashboardState>, vscode.Disposable {
  /** One dashboard per window: the set's one key. */
  private static readonly ONE = 'dashboard';
  private readonly panels: WebviewPanels<DashboardPanel>;
  private readonly disposables: vscode.Disposable[];

  constructor(extensionUri: vscode.Uri, stores: StoreHost, log: Logger) {
    const source = dashboardSource(stores, extensionUri, log);
    this.panels = new WebviewPanels(DASHBOARD_VIEW_TYPE, (panel) => new DashboardPanel(panel, extensionUri, source, log));
    this.disposables = [this.panels, vscode.window.registerWebviewPanelSerializer(DASHBOARD_VIEW_TYPE, this), vscode.commands.registerCommand('idealState.openDashboard', () => this.open())];
  }

  open(): DashboardPanel {
    const wasOpen = this.panels.get(Dashboards.ONE) !== undefined;
    const panel = this.panels.show(Dashboards.ONE, 'Ideal State Dashboard', vscode.ViewColumn.Active);
    // Opened again: revealed, and its figures summed again as Refresh does.
    if (wasOpen) void panel.send().catch(() => undefined);
    return panel;
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel): Promise<void> {
    this.panels.get(Dashboards.ONE)?.dispose();
    this.panels.adopt(panel, Dashboards.ONE);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

export function registerDashboard(context: vscode.ExtensionContext, stores: StoreHost, log: Logger): Dashboards {
  return new Dashboards(context.extensionUri, stores, log);
}
