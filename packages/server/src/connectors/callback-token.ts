/**
 * How every connector authenticates what a provider sends back: an HMAC-SHA256 under a key
 * derived from the service key, of whatever the provider's scheme covers (the Purse id of an
 * unsigned callback's URL for MTN and M-Pesa, the raw body for a signed one such as the
 * sandbox's), checked in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How a provider writes the token or signature (base64url for Purse's own URL tokens). */
export type TokenEncoding = 'base64url' | 'base64' | 'hex';

/** The characters each encoding may use: Buffer.from skips others, so they are refused first. */
const ALPHABET: Record<TokenEncoding, RegExp> = {
  base64url: /^[A-Za-z0-9_-]*$/,
  base64: /^[A-Za-z0-9+/]*={0,2}$/,
  hex: /^[0-9A-Fa-f]*$/,
};

/** The token (or signature) of `message` under `key`. */
export function callbackTokenOf(key: Buffer, message: string, encoding: TokenEncoding = 'base64url'): string {
  return createHmac('sha256', key).update(message, 'utf8').digest(encoding);
}

/**
 * Whether `given` is the token of `message` under `key`. Anything but one string of the expected
 * length in the encoding's alphabet (missing, repeated as an array, another length) is false
 * before any comparison; the bytes are then compared in constant time, so the time taken tells
 * nothing of how much of a forged token was right.
 */
export function verifyCallbackToken(key: Buffer, message: string, given: unknown, encoding: TokenEncoding = 'base64url'): boolean {
  if (typeof given !== 'string') return false;
  const expected = createHmac('sha256', key).update(message, 'utf8').digest();
  if (given.length !== expected.toString(encoding).length || !ALPHABET[encoding].test(given)) return false;
  const provided = Buffer.from(given, encoding);
  return provided.length === expected.length && timingSafeEqual(provided, expected);
}
