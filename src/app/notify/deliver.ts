import type { Webhook } from './config';
import { slackBody, type NotificationPayload } from './payload';
import { SIGNATURE_HEADER, signBody } from './sign';

/**
 * One delivery: POST the body, signed, and retry a network error, a 429 or a 5xx with doubling
 * waits, all within a total bound, so a receiver that is down costs at most that bound and never
 * the run or the gate (which deliver after their own answer, or from a detached process).
 * A 4xx other than 429 is the receiver refusing the body: retrying would not change it.
 */

export interface DeliveryPorts {
  /** One HTTP POST; resolves with the status, rejects on a network error or the signal. */
  readonly post: (url: string, body: string, headers: Record<string, string>, signal: AbortSignal) => Promise<{ status: number }>;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
}

export interface DeliveryLimits {
  readonly attempts: number;
  /** The first wait; each next one doubles. */
  readonly firstBackoffMs: number;
  /** Every attempt and wait together. */
  readonly totalMs: number;
  /** One attempt at most. */
  readonly attemptMs: number;
}

export const DEFAULT_LIMITS: DeliveryLimits = { attempts: 5, firstBackoffMs: 1_000, totalMs: 30_000, attemptMs: 10_000 };

export interface DeliveryResult {
  readonly ok: boolean;
  readonly attempts: number;
  /** The last HTTP status, when an answer came. */
  readonly status?: number;
  /** Why it failed (no secret, no URL path in it). */
  readonly error?: string;
}

export type Signed = { ok: true; body: string; headers: Record<string, string> } | { ok: false; error: string };

/** The body and headers for one webhook; no delivery without its secret. */
export function signedRequest(webhook: Webhook, payload: NotificationPayload, env: NodeJS.ProcessEnv): Signed {
  const secret = env[webhook.secretEnv];
  if (!secret) return { ok: false, error: `the environment variable ${webhook.secretEnv} (its secretEnv) is not set: nothing was sent unsigned` };
  const body = JSON.stringify(webhook.format === 'slack' ? slackBody(payload) : payload);
  return {
    ok: true,
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'ideal-state-notify',
      'x-ideal-state-event': payload.event,
      'x-ideal-state-delivery': payload.id,
      [SIGNATURE_HEADER.toLowerCase()]: signBody(body, secret),
    },
  };
}

/** Where a webhook goes, for messages: its origin only (a Slack webhook's path is its secret). */
export const shownUrl = (url: string) => {
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return 'the webhook';
  }
};

export async function deliver(url: string, body: string, headers: Record<string, string>, ports: DeliveryPorts, limits: DeliveryLimits = DEFAULT_LIMITS): Promise<DeliveryResult> {
  const start = ports.now();
  let wait = limits.firstBackoffMs;
  let last: DeliveryResult = { ok: false, attempts: 0, error: 'not sent' };
  for (let attempt = 1; attempt <= limits.attempts; attempt++) {
    const left = limits.totalMs - (ports.now() - start);
    if (left <= 0) break;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.min(limits.attemptMs, left));
    try {
      const { status } = await ports.post(url, body, headers, controller.signal);
      if (status >= 200 && status < 300) return { ok: true, attempts: attempt, status };
      last = { ok: false, attempts: attempt, status, error: `HTTP ${status}` };
      if (status !== 429 && status < 500) return last;
    } catch (error) {
      last = { ok: false, attempts: attempt, error: controller.signal.aborted ? 'no answer in time' : describe(error) };
    } finally {
      clearTimeout(timer);
    }
    if (attempt === limits.attempts || ports.now() - start + wait >= limits.totalMs) break;
    await ports.sleep(wait);
    wait *= 2;
  }
  return last;
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** The real ports: Node's fetch, a timer, the wall clock. */
export const nodeDelivery: DeliveryPorts = {
  post: async (url, body, headers, signal) => {
    const response = await fetch(url, { method: 'POST', body, headers, signal, redirect: 'error' });
    await response.body?.cancel().catch(() => undefined);
    return { status: response.status };
  },
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => Date.now(),
};
