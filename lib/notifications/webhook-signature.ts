import { createHmac, timingSafeEqual } from 'node:crypto';

/** The headers of a signed webhook: when it was signed (Unix seconds) and `v1=<hex HMAC-SHA256>`. */
export const WEBHOOK_TIMESTAMP_HEADER = 'x-payouts-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'x-payouts-signature';
/** A receiver refuses a body signed longer ago than this: a captured request cannot be replayed later. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * The signature of one webhook body: HMAC-SHA256 with the shared key over `<timestamp>.<body>`, hex, as `v1=...`
 * (docs/operations.md, "Notifications", shows a receiver's check).
 *
 * @example signWebhook('key', 1767225600, '{"text":"..."}') // 'v1=5d0c...'
 */
export function signWebhook(key: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** A receiver's check: the signature matches, in constant time, and the timestamp is recent. */
export function verifyWebhook(
  key: string,
  headers: { readonly timestamp: string | undefined; readonly signature: string | undefined },
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > WEBHOOK_TOLERANCE_SECONDS)
    return false;
  const expected = Buffer.from(signWebhook(key, timestamp, body));
  const given = Buffer.from(headers.signature ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
