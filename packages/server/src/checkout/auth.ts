import type { AuthContext } from '../oauth/service.ts';

/**
 * The merchant context the hosted page acts in (checkout attempts, a payment link's sessions): no
 * API key stands behind it, so it names none (`hosted_checkout`, never a key's id) and holds only
 * what a payer's attempt needs: creating the session's payments.
 */
export const hostedCheckoutAuth = (merchantId: string, livemode: boolean): AuthContext => ({
  merchantId,
  livemode,
  apiKeyId: 'hosted_checkout',
  scopes: ['payments:write'],
});
