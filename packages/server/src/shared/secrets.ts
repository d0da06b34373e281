import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** An opaque secret with 256 random bits, base64url, behind a readable prefix. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/**
 * Keyed hash (HMAC-SHA256) used for client secrets, access tokens and card numbers.
 * The inputs are high-entropy (secrets, tokens) or compared only for equality (card numbers),
 * so a keyed fast hash is enough; the key keeps a database dump from being brute-forced.
 */
export function keyedHash(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('base64url');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    // Still spend comparable time so the length is not the only signal.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
