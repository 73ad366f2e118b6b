import * as vscode from 'vscode';
import type { DashboardData } from '../../app/dashboard/data';
import type { Logger } from '../../model/log';
import type { DashboardProtocol, DashboardState, ShownDashboard } from '../../../webviews/dashboard/protocol';
import { WebviewBridge, WebviewRequestRefused, webviewHtml, webviewOptions } from '../webview';

export const DASHBOARD_VIEW_TYPE = 'idealState.dashboard';

/** Where the panel's figures come from: the store's, summed when asked (on open, on Refresh). */
export type DashboardSource = () => Promise<DashboardData>;

/**
 * The dashboard in an editor tab: the store's history, summed when the view (re)loads and when
 * the person presses Refresh. A report, not a live view: it reads the store only when asked.
 */
export class DashboardPanel implements vscode.Disposable {
  private readonly _onDidDispose = new vscode.EventEmitter<void>();
  readonly onDidDispose = this._onDidDispose.event;
  private readonly bridge: WebviewBridge<DashboardProtocol>;
  private readonly disposables: vscode.Disposable[] = [this._onDidDispose];
  private readonly probes: ((shown: ShownDashboard) => void)[] = [];
  private sending: Promise<void> = Promise.resolve();

  constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly source: DashboardSource,
    private readonly log: Logger,
  ) {
    panel.webview.options = webviewOptions(extensionUri);
    panel.webview.html = webviewHtml(panel.webview, extensionUri, { entry: 'dashboard', title: 'Ideal State dashboard' });
    this.bridge = new WebviewBridge<DashboardProtocol>(
      panel.webview,
      {
        refresh: async () => {
          await this.send();
          return null;
        },
        shown: (shown) => {
          for (const resolve of this.probes.splice(0)) resolve(shown);
          return null;
        },
      },
      log,
    );
    this.disposables.push(this.bridge, this.bridge.onDidBecomeReady(() => void this.send().catch(() => undefined)), panel.onDidDispose(() => this.dispose()));
  }

  get ready(): boolean {
    return this.bridge.ready;
  }

  /** Sums the store and sends the figures; a failure is refused with a message the view shows. */
  send(): Promise<void> {
    this.sending = this.sending.then(async () => {
      let data: DashboardData;
      try {
        data = await this.source();
      } catch (error) {
        this.log.error(`the dashboard could not read the store: ${error instanceof Error ? error.message : String(error)}`);
        throw new WebviewRequestRefused('The store could not be read; see the Ideal State log.');
      }
      this.bridge.post('snapshot', data);
    });
    const sent = this.sending;
    this.sending = sent.catch(() => undefined);
    return sent;
  }

  /** What the view shows, read back from its DOM (the editor's tests). */
  probe(timeoutMs = 10_000): Promise<ShownDashboard> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the dashboard did not answer')), timeoutMs);
      this.probes.push((shown) => (clearTimeout(timer), resolve(shown)));
      this.bridge.post('probe', {});
    });
  }

  private disposed = false;

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this._onDidDispose.fire();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}

export type { DashboardState };
