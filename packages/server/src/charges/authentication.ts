import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The Purse URLs of a card payment's 3-D Secure: `start` sends the payer's browser to the
 * acquirer's challenge, `return` is where the acquirer sends it back. Both carry a MAC of the
 * payment id under a key derived from the service key, so nobody can make up the URL of a
 * payment they were not sent to, and the URL carries no secret of its own.
 */
export interface AuthenticationUrls {
  start(paymentId: string): string;
  return(paymentId: string): string;
  /** Whether `token` is the MAC of this payment's URLs. */
  verify(paymentId: string, token: string): boolean;
}

/** Where this service is reached from a browser: PURSE_PUBLIC_URL, else this machine's port. */
export function publicOrigin(config: { publicBaseUrl: string | null; port: number }): string {
  return config.publicBaseUrl ?? `http://127.0.0.1:${config.port}`;
}

export function authenticationUrls(origin: string, hashKey: Buffer): AuthenticationUrls {
  const key = createHmac('sha256', hashKey).update('purse card authentication v1').digest();
  const token = (paymentId: string) => createHmac('sha256', key).update(paymentId).digest('base64url').slice(0, 32);
  return {
    start: (id) => `${origin}/3ds/${id}/${token(id)}`,
    return: (id) => `${origin}/3ds/${id}/${token(id)}/return`,
    verify(id, given) {
      const expected = Buffer.from(token(id));
      const actual = Buffer.from(given);
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}
