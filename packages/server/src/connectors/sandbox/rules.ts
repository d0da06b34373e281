import type { FailureCode } from '../connector.ts';

/**
 * The sandbox's deterministic outcomes (api-v1.md §10). Pure functions, so tests and the
 * documentation can list them.
 */

export type SandboxRule =
  | { outcome: 'succeeded' | 'failed'; failureCode: FailureCode | null; after: 'delay' | 'slow' | 'expiry' }
  | { outcome: 'pending'; failureCode: null; after: 'never' };

const MOBILE_MONEY: Record<string, SandboxRule> = {
  '001': { outcome: 'failed', failureCode: 'insufficient_funds', after: 'delay' },
  '002': { outcome: 'failed', failureCode: 'payer_declined', after: 'delay' },
  '003': { outcome: 'failed', failureCode: 'expired', after: 'expiry' },
  '004': { outcome: 'failed', failureCode: 'payer_not_found', after: 'delay' },
  '005': { outcome: 'pending', failureCode: null, after: 'never' },
  '006': { outcome: 'succeeded', failureCode: null, after: 'slow' },
  '007': { outcome: 'failed', failureCode: 'provider_error', after: 'delay' },
  '008': { outcome: 'failed', failureCode: 'limit_exceeded', after: 'delay' },
};

export function mobileMoneyRule(phoneNumber: string): SandboxRule {
  return MOBILE_MONEY[phoneNumber.slice(-3)] ?? { outcome: 'succeeded', failureCode: null, after: 'delay' };
}

const CARDS: Record<string, FailureCode | null> = {
  '4242424242424242': null,
  '5555555555554444': null,
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired_card',
  '4000000000000127': 'incorrect_cvc',
  '4000000000000119': 'processing_error',
};

/** null: the card is authorised. Any Luhn-valid number not listed succeeds. */
export function cardFailure(number: string): FailureCode | null {
  return CARDS[number] ?? null;
}

/** The slow mobile-money number waits this many times the configured delay. */
export const SLOW_FACTOR = 15;
