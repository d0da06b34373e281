import type { AuthContext } from '../oauth/service.ts';

/**
 * The merchant context the hosted page acts in (checkout attempts, a payment link's sessions): no
 * API key stands behind it, so it names none (`hosted_checkout`, never a key's id) and holds only
 * what a payer's attempt needs: creating the session's payments.
 */
export const hostedCheckoutAuth = (merchantId: string, livemode: boolean): AuthContext => ({
  merchantId,
  livemode,
  // The page collects the card itself: the raw-card-data permission is not asked (charges/prepare.ts).
  rawCardData: false,
  apiKeyId: 'hosted_checkout',
  scopes: ['payments:write'],
});
