import type { Static } from 'typebox';
import type { Config } from '../config.ts';
import { ApiError } from '../shared/errors.ts';
import { amountErrorMessage, formatAmount, maxAmountMinor, parseAmount } from '../shared/money.ts';
import { addressPolicy, checkCallbackUrl, URL_PROBLEM_MESSAGES } from '../webhooks/url-guard.ts';
import type { CardInput, CustomerInput, MobileMoneyInput } from './schemas.ts';

/** Turns validated-shape request fields into canonical values, refusing what the schema cannot see. */

const invalid = (param: string, message: string) => new ApiError('parameter_invalid', `${param} ${message}.`, { param });

const E164 = /^\+[1-9][0-9]{7,14}$/;
const LEADING_OR_TRAILING_SPACE = /^\s|\s$/;

export function checkReference(reference: string): string {
  if (LEADING_OR_TRAILING_SPACE.test(reference)) throw invalid('reference', 'must not start or end with white space');
  return reference;
}

export function checkCurrency(currency: string, config: Pick<Config, 'currencies'>): string {
  if (!config.currencies.includes(currency)) {
    throw new ApiError('currency_not_supported', `currency ${currency} is not supported; supported: ${config.currencies.join(', ')}.`, {
      param: 'currency',
    });
  }
  return currency;
}

export function checkAmount(amount: string, currency: string, config: Pick<Config, 'maxAmounts' | 'defaultMaxAmount'>): bigint {
  const parsed = parseAmount(amount, currency);
  const max = maxAmountMinor(currency, config.maxAmounts, config.defaultMaxAmount);
  if (!parsed.ok)
    throw new ApiError('parameter_invalid', `${amountErrorMessage(parsed.error, currency, formatAmount(max, currency))}.`, {
      param: 'amount',
    });
  if (parsed.value > max) {
    throw new ApiError('parameter_invalid', `${amountErrorMessage('too_large', currency, formatAmount(max, currency))}.`, {
      param: 'amount',
    });
  }
  return parsed.value;
}

export function checkPhone(phone: string, param: string): string {
  if (!E164.test(phone)) throw invalid(param, 'must be an E.164 phone number such as +254712345678');
  return phone;
}

export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = number.charCodeAt(number.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export function cardBrand(number: string): string {
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2(2[2-9][1-9]|2[3-9]|[3-6]|7[01]|720))/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^(6011|65|64[4-9])/.test(number)) return 'discover';
  return 'unknown';
}

export function checkCard(card: Static<typeof CardInput>, param: string, now: Date): void {
  if (!/^[0-9]{12,19}$/.test(card.number)) throw invalid(`${param}.number`, 'must be 12 to 19 digits');
  if (!luhnValid(card.number)) throw invalid(`${param}.number`, 'is not a valid card number');
  if (card.exp_year < 2000 || card.exp_year > 2100) throw invalid(`${param}.exp_year`, 'must be a four-digit year');
  if (card.exp_year < now.getUTCFullYear()) throw invalid(`${param}.exp_year`, 'is in the past: the card has expired');
  const monthIndex = now.getUTCFullYear() * 12 + now.getUTCMonth();
  if (card.exp_year * 12 + (card.exp_month - 1) < monthIndex) throw invalid(`${param}.exp_month`, 'is in the past: the card has expired');
  if (!/^[0-9]{3,4}$/.test(card.cvc)) throw invalid(`${param}.cvc`, 'must be 3 or 4 digits');
}

export function checkMobileMoney(mm: Static<typeof MobileMoneyInput>, param: string): { phone_number: string; provider: string | null } {
  return { phone_number: checkPhone(mm.phone_number, `${param}.phone_number`), provider: mm.provider ?? null };
}

/** `param`: the field's name in this request (`customer` on payments, `holder` on wallets). */
export function checkCustomer(customer: Static<typeof CustomerInput> | undefined, param = 'customer') {
  if (!customer) return null;
  if (customer.email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(customer.email))
    throw invalid(`${param}.email`, 'must be an email address');
  return {
    name: customer.name ?? null,
    email: customer.email ?? null,
    phone_number: customer.phone_number === undefined ? null : checkPhone(customer.phone_number, `${param}.phone_number`),
  };
}

export function checkCallback(
  url: string | undefined,
  config: Pick<Config, 'allowPrivateWebhookUrls' | 'sandboxLoopbackWebhooks'>,
  livemode: boolean,
): string | null {
  if (url === undefined) return null;
  const problem = checkCallbackUrl(url, addressPolicy(config, livemode));
  if (problem) throw invalid('callback_url', URL_PROBLEM_MESSAGES[problem]);
  return url;
}

/**
 * Where the payer's browser goes after 3-D Secure: an absolute http(s) URL without credentials.
 * Only a browser follows it (Purse never fetches it), so any host is allowed.
 */
export function checkReturnUrl(url: string | undefined): string | null {
  if (url === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('return_url', 'must be an absolute http(s) URL, such as https://shop.example/paid');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw invalid('return_url', 'must be an http(s) URL');
  if (parsed.username || parsed.password) throw invalid('return_url', 'must not carry credentials');
  return url;
}
