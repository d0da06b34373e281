// Stripe's published test cards (docs.stripe.com/testing, /radar/testing, /payments/3d-secure) and
// what each does. As in Stripe's test mode, a well-formed number that is not a test card is
// declined (`test_mode_live_card`). Card data is checked as Stripe checks it when it builds the
// PaymentMethod: a bad number, expiry or CVC is a 402 card_error before any PaymentIntent exists.
// Only the brand, last four digits and expiry are kept: never the number or the CVC.
import { errorAnswer, ParamError } from './errors.ts';

export interface Decline {
  code: string;
  declineCode?: string;
  message: string;
  param?: string;
}

export type Scenario =
  | { kind: 'success'; refund?: 'fails_later' | 'pending' }
  | { kind: 'decline'; decline: Decline }
  | { kind: 'challenge'; afterChallenge: 'success' | 'decline' }
  | { kind: 'frictionless' };

const declined = (declineCode: string, message = 'Your card was declined.'): Scenario => ({
  kind: 'decline',
  decline: { code: 'card_declined', declineCode, message },
});

/** A decline of the issuer after a completed challenge (4000008400001629). */
export const DECLINE_AFTER_CHALLENGE: Decline = {
  code: 'card_declined',
  declineCode: 'generic_decline',
  message: 'Your card was declined.',
};

export const ACQUIRER_TEST_CARDS: Readonly<Record<string, { scenario: Scenario; description: string }>> = {
  '4242424242424242': { scenario: { kind: 'success' }, description: 'Visa: succeeds' },
  '4000056655665556': { scenario: { kind: 'success' }, description: 'Visa debit: succeeds' },
  '5555555555554444': { scenario: { kind: 'success' }, description: 'Mastercard: succeeds' },
  '378282246310005': { scenario: { kind: 'success' }, description: 'American Express: succeeds' },
  '4000000000000002': { scenario: declined('generic_decline'), description: 'card_declined / generic_decline' },
  '4000000000009995': {
    scenario: declined('insufficient_funds', 'Your card has insufficient funds.'),
    description: 'card_declined / insufficient_funds',
  },
  '4000000000009987': { scenario: declined('lost_card'), description: 'card_declined / lost_card' },
  '4000000000009979': { scenario: declined('stolen_card'), description: 'card_declined / stolen_card' },
  '4100000000000019': { scenario: declined('fraudulent'), description: 'blocked as fraudulent: card_declined / fraudulent' },
  '4000000000000069': {
    scenario: { kind: 'decline', decline: { code: 'expired_card', message: 'Your card has expired.', param: 'exp_month' } },
    description: 'expired_card (no decline_code)',
  },
  '4000000000000127': {
    scenario: { kind: 'decline', decline: { code: 'incorrect_cvc', message: "Your card's security code is incorrect.", param: 'cvc' } },
    description: 'incorrect_cvc (no decline_code)',
  },
  '4000000000000119': {
    scenario: {
      kind: 'decline',
      decline: { code: 'processing_error', message: 'An error occurred while processing your card. Try again in a little bit.' },
    },
    description: 'processing_error (no decline_code)',
  },
  '4000000000003220': {
    scenario: { kind: 'challenge', afterChallenge: 'success' },
    description: '3-D Secure challenge, then succeeds',
  },
  '4000008400001629': {
    scenario: { kind: 'challenge', afterChallenge: 'decline' },
    description: '3-D Secure challenge, then card_declined',
  },
  '4000000000003055': { scenario: { kind: 'frictionless' }, description: '3-D Secure frictionless: succeeds' },
  '4000000000005126': {
    scenario: { kind: 'success', refund: 'fails_later' },
    description: 'succeeds; a refund is succeeded, then failed (expired_or_canceled_card)',
  },
  '4000000000007726': { scenario: { kind: 'success', refund: 'pending' }, description: 'succeeds; a refund is pending, then succeeded' },
};

export interface CardFacts {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  funding: 'credit' | 'debit';
  scenario: Scenario;
}

export function brandOf(number: string): string {
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^(6011|65)/.test(number)) return 'discover';
  if (/^35/.test(number)) return 'jcb';
  if (/^3[068]/.test(number)) return 'diners';
  if (/^62/.test(number)) return 'unionpay';
  return 'unknown';
}

export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

const cardError = (code: string, message: string, param: string) =>
  new ParamError(errorAnswer(402, { type: 'card_error', code, message, param }), message);

export interface RawCard {
  number: string;
  expMonth: string;
  expYear: string;
  cvc?: string;
}

/** Checks the card as Stripe does (402 card_error on bad data) and keeps only what may be kept. */
export function readCard(raw: RawCard, now: Date): CardFacts {
  const { number } = raw;
  if (!/^\d{12,19}$/.test(number)) throw cardError('invalid_number', 'Your card number is invalid.', 'number');
  if (!luhnValid(number)) throw cardError('incorrect_number', 'Your card number is incorrect.', 'number');
  const expMonth = /^\d{1,2}$/.test(raw.expMonth) ? Number(raw.expMonth) : Number.NaN;
  if (!(expMonth >= 1 && expMonth <= 12)) throw cardError('invalid_expiry_month', "Your card's expiration month is invalid.", 'exp_month');
  let expYear = /^\d{2}$|^\d{4}$/.test(raw.expYear) ? Number(raw.expYear) : Number.NaN;
  if (expYear < 100) expYear += 2000;
  const year = now.getUTCFullYear();
  if (!(expYear >= year && expYear <= year + 50))
    throw cardError('invalid_expiry_year', "Your card's expiration year is invalid.", 'exp_year');
  if (expYear === year && expMonth < now.getUTCMonth() + 1) {
    throw cardError('invalid_expiry_month', "Your card's expiration month is invalid.", 'exp_month');
  }
  if (raw.cvc !== undefined && !/^\d{3,4}$/.test(raw.cvc)) throw cardError('invalid_cvc', "Your card's security code is invalid.", 'cvc');
  const known = ACQUIRER_TEST_CARDS[number];
  const scenario: Scenario = known?.scenario ?? {
    kind: 'decline',
    decline: {
      code: 'card_declined',
      declineCode: 'test_mode_live_card',
      message: 'Your card was declined. Your request was in test mode, but used a non test (live) card.',
    },
  };
  const funding = number === '4000056655665556' ? 'debit' : 'credit';
  return { brand: brandOf(number), last4: number.slice(-4), expMonth, expYear, funding, scenario };
}
