import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import { isObject, type EventName, type HostMessage, type ParamsOf, type Protocol, type RequestName, type ResultOf, type WebviewError } from '../../../webviews/shared/protocol';

export type { Protocol } from '../../../webviews/shared/protocol';

/** One handler per request of the protocol; what it returns (or resolves to) is the reply. */
export type RequestHandlers<P extends Protocol> = {
  [M in RequestName<P>]: (params: ParamsOf<P, M>) => ResultOf<P, M> | Promise<ResultOf<P, M>>;
};

/** A handler's way to refuse a request with a message the view may show. */
export class WebviewRequestRefused extends Error {
  override readonly name = 'WebviewRequestRefused';
  constructor(message: string, readonly code: WebviewError['code'] = 'failed') {
    super(message);
  }
}

/**
 * The host's end of a webview's protocol: answers the view's requests by id, pushes events,
 * and fires `onDidBecomeReady` each time the view (re)loads and asks for its state — the
 * moment to send it a full snapshot. Events posted while the view is not loaded are dropped;
 * the next `ready` brings it up to date.
 */
export class WebviewBridge<P extends Protocol> implements vscode.Disposable {
  private readonly _onDidBecomeReady = new vscode.EventEmitter<void>();
  readonly onDidBecomeReady = this._onDidBecomeReady.event;
  private readonly disposables: vscode.Disposable[] = [this._onDidBecomeReady];
  private isReady = false;

  constructor(
    private readonly webview: vscode.Webview,
    private readonly handlers: RequestHandlers<P>,
    private readonly log: Logger,
  ) {
    this.disposables.push(webview.onDidReceiveMessage((m: unknown) => this.receive(m)));
  }

  get ready(): boolean {
    return this.isReady;
  }

  post<E extends EventName<P>>(type: E, body: P['events'][E]): void {
    if (!this.isReady) return;
    void this.send({ kind: 'event', type, body } as HostMessage<P>);
  }

  private receive(message: unknown): void {
    if (!isObject(message)) return this.log.warn('a webview sent a message that is not an object; ignored');
    if (message.kind === 'ready') {
      this.isReady = true;
      this._onDidBecomeReady.fire();
      return;
    }
    if (message.kind !== 'request' || typeof message.id !== 'number') return this.log.warn('a webview sent a message of unknown kind; ignored');
    const id = message.id;
    const method = message.method;
    const handler = typeof method === 'string' && Object.hasOwn(this.handlers, method) ? this.handlers[method as RequestName<P>] : undefined;
    if (!handler) return void this.send({ kind: 'reply', id, ok: false, error: { code: 'unknown-method', message: `no request "${String(method)}"` } });
    Promise.resolve()
      .then(() => handler(message.params as never))
      .then(
        (result) => this.send({ kind: 'reply', id, ok: true, result }),
        (error: unknown) => {
          const refused = error instanceof WebviewRequestRefused;
          if (!refused) this.log.error(`webview request ${String(method)} failed: ${error instanceof Error ? error.message : String(error)}`);
          return this.send({ kind: 'reply', id, ok: false, error: { code: refused ? error.code : 'failed', message: refused ? error.message : `${String(method)} failed; see the Ideal State log` } });
        },
      );
  }

  private send(message: HostMessage<P>): Thenable<boolean> {
    return this.webview.postMessage(message).then(undefined, () => false);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
