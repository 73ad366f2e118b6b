/**
 * The shape every webview protocol has, shared by the extension host (src/vscode/webview)
 * and the webview (webviews/shared/bridge.ts). A view declares one `Protocol`: the requests
 * it sends to the host with their replies, and the events the host pushes to it.
 *
 *   interface MyProtocol extends Protocol {
 *     requests: { save: { params: { text: string }; result: { ok: boolean } } };
 *     events: { changed: { rows: Row[] } };
 *   }
 *
 * On the wire: the view sends `ready` once its listeners are in place (and again after every
 * reload), then `request`s with ids; the host answers each with a `reply` of the same id and
 * pushes `event`s at any time after `ready`.
 */
export interface Protocol {
  requests: Record<string, { params: unknown; result: unknown }>;
  events: Record<string, unknown>;
}

export type RequestName<P extends Protocol> = keyof P['requests'] & string;
export type EventName<P extends Protocol> = keyof P['events'] & string;
export type ParamsOf<P extends Protocol, M extends RequestName<P>> = P['requests'][M]['params'];
export type ResultOf<P extends Protocol, M extends RequestName<P>> = P['requests'][M]['result'];

/** Why a request failed, as the view sees it; never a stack trace or user content from the host. */
export interface WebviewError {
  code: 'unknown-method' | 'bad-request' | 'failed';
  message: string;
}

export type ViewMessage<P extends Protocol> =
  | { kind: 'ready' }
  | { [M in RequestName<P>]: { kind: 'request'; id: number; method: M; params: ParamsOf<P, M> } }[RequestName<P>];

export type HostMessage<P extends Protocol> =
  | { kind: 'reply'; id: number; ok: true; result: unknown }
  | { kind: 'reply'; id: number; ok: false; error: WebviewError }
  | { [E in EventName<P>]: { kind: 'event'; type: E; body: P['events'][E] } }[EventName<P>];

/** A request the view rejected before it reached a handler, or one whose handler threw. */
export class WebviewRequestError extends Error {
  override readonly name = 'WebviewRequestError';
  constructor(readonly error: WebviewError) {
    super(error.message);
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
