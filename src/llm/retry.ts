import { callCancelled, LlmProviderError, LlmTimeoutError } from './errors';

/**
 * Retries with exponential backoff for providers whose client has none (vscode.lm); the
 * OpenAI and Anthropic SDKs retry by themselves. Retries rate limits, server errors,
 * connection failures and timeouts; honours a server's retry-after; never retries a
 * cancellation.
 */
export interface RetryPolicy {
  readonly maxRetries: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, initialDelayMs: 500, maxDelayMs: 8000 };

export function isRetryable(error: unknown): boolean {
  if (error instanceof LlmTimeoutError) return true;
  return error instanceof LlmProviderError && (error.failure === 'rate-limit' || error.failure === 'server' || error.failure === 'connection');
}

/** The wait before retry number `retry` (1-based): retry-after when given, else backoff with jitter. */
export function retryDelayMs(error: unknown, retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  if (error instanceof LlmProviderError && error.retryAfterMs !== undefined && error.retryAfterMs >= 0 && error.retryAfterMs <= 60_000) return error.retryAfterMs;
  const backoff = Math.min(policy.initialDelayMs * 2 ** (retry - 1), policy.maxDelayMs);
  return backoff * (1 - random() * 0.25);
}

export async function withRetry<T>(
  call: (attempt: number) => Promise<T>,
  options: { readonly signal?: AbortSignal; readonly policy?: RetryPolicy; readonly model: string; readonly onRetry?: (error: unknown, waitMs: number) => void },
): Promise<T> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  for (let attempt = 1; ; attempt++) {
    if (options.signal?.aborted) throw callCancelled(options.model);
    try {
      return await call(attempt);
    } catch (error) {
      if (options.signal?.aborted) throw callCancelled(options.model);
      if (attempt > policy.maxRetries || !isRetryable(error)) throw error;
      const wait = retryDelayMs(error, attempt, policy);
      options.onRetry?.(error, wait);
      await sleep(wait, options.signal, options.model);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined, model: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(callCancelled(model));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
