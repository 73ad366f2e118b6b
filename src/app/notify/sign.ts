import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature header, as the large code hosts sign their webhooks (GitHub's
 * `X-Hub-Signature-256: sha256=<hex>`,
 * https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries): the hex
 * HMAC-SHA256 of the exact body bytes under the webhook's secret.
 */
export const SIGNATURE_HEADER = 'X-Ideal-State-Signature-256';

export function signBody(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** What a receiver does: recompute over the raw body and compare in constant time. */
export function verifySignature(body: string | Buffer, secret: string, header: string | undefined): boolean {
  if (!header) return false;
  const want = Buffer.from(signBody(body, secret));
  const got = Buffer.from(header);
  return got.length === want.length && timingSafeEqual(got, want);
}
