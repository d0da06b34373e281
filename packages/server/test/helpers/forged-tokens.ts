// Tokens a client might forge or damage, shared by the Bearer tests, the every-route auth test
// and the fault suite's security scenario so that they all try the same forgeries.
import { randomBytes } from 'node:crypto';

/** A JWT with the given header and payload; the signature is whatever the caller passes (none by default). */
export function jwt(header: object, payload: object, signature = ''): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(payload)}.${signature}`;
}

/** A string of the same length and alphabet as a real token's random part, never the token itself. */
export function sameShape(token: string): string {
  const prefix = /^([a-z]+_)?/.exec(token)?.[0] ?? '';
  let random = randomBytes(64)
    .toString('base64url')
    .slice(0, token.length - prefix.length);
  if (random === token.slice(prefix.length)) random = random.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
  return prefix + random;
}

/** An unsigned JWT naming the merchant: what a server that trusts `alg` would accept. */
export function algNoneFor(merchantId: string, extra: Record<string, unknown> = {}): string {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  return jwt({ alg: 'none', typ: 'JWT' }, { sub: merchantId, merchant_id: merchantId, exp, ...extra });
}
