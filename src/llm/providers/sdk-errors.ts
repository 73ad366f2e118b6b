import { isCancellation } from '../../model/errors';
import { callCancelled, LlmError, LlmProviderError, LlmTimeoutError, redact, type ProviderFailure } from '../errors';

/** The error classes both SDKs export under the same names (checked with instanceof: minified builds rename classes). */
export interface SdkErrorClasses {
  readonly APIError: abstract new (...args: never[]) => Error & { status?: number | undefined };
  readonly APIUserAbortError: abstract new (...args: never[]) => Error;
  readonly APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  readonly APIConnectionError: abstract new (...args: never[]) => Error;
}

export interface CallContext {
  readonly model: string;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  readonly secrets: readonly (string | undefined)[];
}

/**
 * Turns whatever an SDK threw into one of our typed errors. An aborted signal wins over
 * everything (the SDK may surface it as an abort, a connection error or a stream error).
 */
export function fromSdkError(error: unknown, classes: SdkErrorClasses, ctx: CallContext): LlmError {
  if (error instanceof LlmError) return error;
  if (ctx.signal?.aborted || error instanceof classes.APIUserAbortError) return callCancelled(ctx.model);
  if (error instanceof classes.APIConnectionTimeoutError) return new LlmTimeoutError(ctx.model, ctx.timeoutMs);
  if (error instanceof classes.APIConnectionError) return new LlmProviderError(ctx.model, 'connection', 'could not connect to the server');
  if (error instanceof classes.APIError) {
    const status = error.status;
    const param = paramOf(error);
    return new LlmProviderError(ctx.model, failureOf(status), `HTTP ${status ?? '?'}: ${redact(firstLine(error.message), ctx.secrets)}`, status, undefined, param);
  }
  if (isCancellation(error)) return callCancelled(ctx.model);
  // Node's fetch reports a connection cut mid-body as TypeError "terminated" (cause: a socket error).
  if (isConnectionCut(error)) return new LlmProviderError(ctx.model, 'connection', 'the connection closed before the reply was complete');
  const message = error instanceof Error ? error.message : String(error);
  return new LlmProviderError(ctx.model, 'bad-response', redact(firstLine(message), ctx.secrets));
}

/** OpenAI's error body names the refused parameter in `error.param`; the SDK exposes it as `param`. */
function paramOf(error: Error): string | undefined {
  const param = (error as { param?: unknown }).param;
  return typeof param === 'string' && param ? param : undefined;
}

function isConnectionCut(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const code = (error as { code?: unknown }).code ?? cause?.code;
  return error.message === 'terminated' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || /socket hang up/i.test(error.message);
}

function failureOf(status: number | undefined): ProviderFailure {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate-limit';
  if (status === 404) return 'not-found';
  if (status !== undefined && status >= 500) return 'server';
  if (status !== undefined && status >= 400) return 'bad-request';
  return 'other';
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? text;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** Rough token count for servers that report none: about four characters a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
