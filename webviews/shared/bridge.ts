import { isObject, WebviewRequestError, type EventName, type HostMessage, type ParamsOf, type Protocol, type RequestName, type ResultOf, type ViewMessage } from './protocol';

interface VsCodeApi<S> {
  postMessage(message: unknown): void;
  getState(): S | undefined;
  setState(state: S): void;
}
declare function acquireVsCodeApi<S>(): VsCodeApi<S>;

/** The webview's end of the bridge: typed requests with replies, events, and saved state. */
export interface HostBridge<P extends Protocol, S> {
  request<M extends RequestName<P>>(method: M, params: ParamsOf<P, M>): Promise<ResultOf<P, M>>;
  on<E extends EventName<P>>(type: E, handler: (body: P['events'][E]) => void): void;
  /** Tells the host the listeners are in place; it answers with its first events. */
  ready(): void;
  /** What `setState` saved before the view was hidden or reloaded. */
  readonly state: S | undefined;
  setState(state: S): void;
}

/** Connects once per page: `acquireVsCodeApi` may be called only once. */
export function connect<P extends Protocol, S = unknown>(): HostBridge<P, S> {
  const api = acquireVsCodeApi<S>();
  const pending = new Map<number, { resolve: (v: never) => void; reject: (e: Error) => void }>();
  const handlers = new Map<string, (body: unknown) => void>();
  let next = 1;

  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    const message = event.data as HostMessage<P>;
    if (!isObject(message)) return;
    if (message.kind === 'reply' && typeof message.id === 'number') {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (!waiting) return;
      if (message.ok) waiting.resolve(message.result as never);
      else waiting.reject(new WebviewRequestError(message.error));
    } else if (message.kind === 'event' && typeof message.type === 'string') {
      handlers.get(message.type)?.(message.body);
    }
  });

  const post = (message: ViewMessage<P>) => api.postMessage(message);
  return {
    request: (method, params) =>
      new Promise((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve: resolve as (v: never) => void, reject });
        post({ kind: 'request', id, method, params } as ViewMessage<P>);
      }),
    on: (type, handler) => void handlers.set(type, handler as (body: unknown) => void),
    ready: () => post({ kind: 'ready' }),
    state: api.getState(),
    setState: (state) => api.setState(state),
  };
}
