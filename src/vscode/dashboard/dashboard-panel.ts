import * as vscode from 'vscode';
import type { DashboardData } from '../../app/dashboard/data';
import type { Logger } from '../../model/log';
import type { DashboardProtocol, DashboardState, ShownDashboard } from '../../../webviews/dashboard/protocol';
import { WebviewPanelHost, WebviewRequestRefused } from '../webview';

export const DASHBOARD_VIEW_TYPE = 'idealState.dashboard';

/** Where the panel's figures come from: the store's, summed when asked (on open, on Refresh). */
export type DashboardSource = () => Promise<DashboardData>;

/**
 * The dashboard in an editor tab: the store's history, summed when the view (re)loads and when
 * the person presses Refresh. A report, not a live view: it reads the store only when asked.
 */
export class DashboardPanel implements vscode.Disposable {
  private readonly host: WebviewPanelHost<DashboardProtocol>;
  readonly onDidDispose: vscode.Event<void>;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly source: DashboardSource,
    private readonly log: Logger,
  ) {
    const page = { entry: 'dashboard', title: 'Ideal State dashboard' };
    const refresh = async (): Promise<null> => (await this.send(), null);
    this.host = new WebviewPanelHost<DashboardProtocol>(panel, extensionUri, page, { refresh }, log);
    this.onDidDispose = this.host.onDidDispose;
    this.host.own(this.host.bridge.onDidBecomeReady(() => void this.send().catch(() => undefined)));
  }

  get ready(): boolean {
    return this.host.ready;
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
      this.host.bridge.post('snapshot', data);
    });
    const sent = this.sending;
    this.sending = sent.catch(() => undefined);
    return sent;
  }

  /** What the view shows, read back from its DOM (the editor's tests). */
  probe(timeoutMs = 10_000): Promise<ShownDashboard> {
    return this.host.probe('the dashboard', timeoutMs);
  }

  dispose(): void {
    this.host.dispose();
  }
}

export type { DashboardState };
