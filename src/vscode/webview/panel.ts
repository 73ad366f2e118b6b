import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { Protocol } from '../../../webviews/shared/protocol';
import { WebviewBridge, type RequestHandlers } from './bridge';
import { webviewHtml, webviewOptions, type WebviewPage } from './html';

/** A panel's protocol: a `probe` event the view answers with a `shown` request (what its DOM shows, for the editor's tests). */
export interface ProbedProtocol extends Protocol {
  requests: Protocol['requests'] & { shown: { params: unknown; result: null } };
  events: Protocol['events'] & { probe: Record<string, never> };
}

export type ShownOf<P extends ProbedProtocol> = P['requests']['shown']['params'];

/** The requests a panel answers itself: every one but `shown`, which the panel host answers. */
export type PanelHandlers<P extends ProbedProtocol> = Omit<RequestHandlers<P>, 'shown'>;

/**
 * What every editor-tab view of Ideal State does the same way: the options and the strict-CSP
 * page of its bundle, the bridge of its protocol, the probe the editor's tests read it back
 * with, and disposal that closes the tab with everything that listened to it. A panel class
 * (the ISC table, the loop matrix, the dashboard) owns one and adds only what it shows.
 */
export class WebviewPanelHost<P extends ProbedProtocol> implements vscode.Disposable {
  private readonly _onDidDispose = new vscode.EventEmitter<void>();
  readonly onDidDispose = this._onDidDispose.event;
  readonly bridge: WebviewBridge<P>;
  private readonly disposables: vscode.Disposable[] = [this._onDidDispose];
  private readonly probes: ((shown: ShownOf<P>) => void)[] = [];
  private disposed = false;

  constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    page: WebviewPage,
    handlers: PanelHandlers<P>,
    log: Logger,
  ) {
    panel.webview.options = webviewOptions(extensionUri);
    panel.webview.html = webviewHtml(panel.webview, extensionUri, page);
    const shown = (seen: ShownOf<P>): null => {
      for (const resolve of this.probes.splice(0)) resolve(seen);
      return null;
    };
    this.bridge = new WebviewBridge<P>(panel.webview, { ...handlers, shown } as unknown as RequestHandlers<P>, log);
    this.disposables.push(this.bridge, panel.onDidDispose(() => this.dispose()));
  }

  get ready(): boolean {
    return this.bridge.ready;
  }

  /** Ties listeners to the panel: they are disposed when it closes. */
  own(...disposables: vscode.Disposable[]): void {
    if (this.disposed) for (const d of disposables) d.dispose();
    else this.disposables.push(...disposables);
  }

  /** What the view shows, read back from its DOM; `who` names the view in the error when it does not answer. */
  probe(who: string, timeoutMs = 10_000): Promise<ShownOf<P>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${who} did not answer`)), timeoutMs);
      this.probes.push((seen) => (clearTimeout(timer), resolve(seen)));
      (this.bridge as WebviewBridge<ProbedProtocol>).post('probe', {});
    });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this._onDidDispose.fire();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}

/** What a set of panels keeps: a panel class over one editor tab. */
export interface OpenPanel extends vscode.Disposable {
  readonly panel: vscode.WebviewPanel;
  readonly onDidDispose: vscode.Event<void>;
  readonly ready: boolean;
}

/** Where a panel opens: the active group, or beside it without taking the focus. */
export type PanelColumn = vscode.ViewColumn | { viewColumn: vscode.ViewColumn; preserveFocus: boolean };

/**
 * The open panels of one view type, one per key (a run's id, a loop's id): an open one is
 * revealed rather than opened twice, a new one gets the options every panel has, and a closed
 * one is forgotten. The owner stays the view type's serializer: it knows what a reloaded
 * view's state names and hands the panel to `adopt`.
 */
export class WebviewPanels<T extends OpenPanel> implements vscode.Disposable {
  private readonly open = new Map<string, T>();

  constructor(
    private readonly viewType: string,
    private readonly make: (panel: vscode.WebviewPanel, key: string) => T,
    private readonly onClose: (key: string) => void = () => undefined,
  ) {}

  get(key: string): T | undefined {
    return this.open.get(key);
  }

  keys(): string[] {
    return [...this.open.keys()];
  }

  values(): T[] {
    return [...this.open.values()];
  }

  /** The key's open panel (revealed unless `reveal` is false), or a new one with `title` in `column`. */
  show(key: string, title: string, column: PanelColumn, reveal = true): T {
    const open = this.open.get(key);
    if (open) {
      if (reveal) open.panel.reveal();
      return open;
    }
    return this.adopt(vscode.window.createWebviewPanel(this.viewType, title, column, { enableScripts: true, enableFindWidget: true }), key);
  }

  /** Puts a panel class over an editor tab (a new one, or one VS Code brought back after a reload). */
  adopt(webviewPanel: vscode.WebviewPanel, key: string): T {
    const panel = this.make(webviewPanel, key);
    this.open.set(key, panel);
    panel.onDidDispose(() => {
      if (this.open.get(key) !== panel) return;
      this.open.delete(key);
      this.onClose(key);
    });
    return panel;
  }

  /**
   * A tab VS Code brought back after a reload, under the key its view saved in its state; a
   * state without one (an older view, a damaged state) cannot be shown, so the tab is closed
   * and `missing` logged rather than left blank.
   */
  restore(webviewPanel: vscode.WebviewPanel, key: unknown, log: Logger, missing: string): T | undefined {
    if (typeof key === 'string' && key) return this.adopt(webviewPanel, key);
    log.warn(missing);
    webviewPanel.dispose();
    return undefined;
  }

  /** For the editor's tests: the key's panel once its view has loaded; `who` names it in the error. */
  async whenReady(key: string, who: string, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const panel = this.open.get(key);
      if (panel?.ready) return panel;
      if (Date.now() > deadline) throw new Error(`no ${who} became ready`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  dispose(): void {
    for (const panel of this.values()) panel.dispose();
  }
}
