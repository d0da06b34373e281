import { type RawBuilder, sql } from 'kysely';

/**
 * Why a payment, top-up, refund, payout or transfer failed: the contract's failure codes and the
 * message each shows. Shared by Purse's own money writes (wallet payments, transfers, refunds and
 * payouts), the sandbox controls, and the connectors, which map a provider's answers onto them.
 */

export const FAILURE_CODES = [
  'insufficient_funds',
  'payer_declined',
  'expired',
  'payer_not_found',
  'limit_exceeded',
  'card_declined',
  'expired_card',
  'incorrect_cvc',
  'processing_error',
  'lost_or_stolen_card',
  'fraudulent',
  'authentication_failed',
  'wallet_inactive',
  'provider_error',
  'payee_not_found',
] as const;

export type FailureCode = (typeof FAILURE_CODES)[number];

export const FAILURE_MESSAGES: Record<FailureCode, string> = {
  insufficient_funds: 'The payer does not have enough funds.',
  payer_declined: 'The payer declined the request.',
  expired: 'The payer did not complete the request in time.',
  payer_not_found: 'No account was found for this phone number.',
  limit_exceeded: "The amount exceeds the payer's limit.",
  card_declined: 'The card was declined.',
  expired_card: 'The card has expired.',
  incorrect_cvc: "The card's security code is incorrect.",
  processing_error: 'An error occurred while processing the card.',
  lost_or_stolen_card: 'The card was reported lost or stolen.',
  fraudulent: 'The card issuer declined the payment as possibly fraudulent.',
  authentication_failed: 'The payer did not complete 3-D Secure authentication.',
  wallet_inactive: 'The wallet is frozen.',
  provider_error: 'The provider could not process the request.',
  payee_not_found: 'No account was found for the payee.',
};

/**
 * `CASE <code> WHEN 'insufficient_funds' THEN '<its message>' … END`: the message of a failure
 * code a statement decides, for the codes it can decide (NULL for any other, or no failure).
 * The messages are literals: a merged statement's text carries no parameters of its own.
 */
export function failureMessageSql(code: RawBuilder<unknown>, codes: readonly FailureCode[]): RawBuilder<string> {
  const cases = codes.map((c) => sql`WHEN ${sql.lit(c)} THEN ${sql.lit(FAILURE_MESSAGES[c])}`);
  return sql<string>`CASE ${code} ${sql.join(cases, sql` `)} END`;
}
