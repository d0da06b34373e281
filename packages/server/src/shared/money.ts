import { err, ok, type Result } from './result.ts';

/**
 * Money is a bigint of minor units inside the service and a decimal string of major units on
 * the wire. Minor digits come from the runtime's ISO 4217 data (Intl), not a hand-typed table.
 */

const digitsCache = new Map<string, number>();

export function minorDigits(currency: string): number {
  let digits = digitsCache.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    digitsCache.set(currency, digits);
  }
  return digits;
}

export type AmountError = 'format' | 'too_many_decimals' | 'not_positive' | 'too_large';

const AMOUNT = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;
const MAX_INTEGER_DIGITS = 15;

/** "10.5" KES → 1050n. ASCII digits only: no sign, exponent, spaces or a bare "10." / ".5". */
export function parseAmount(text: string, currency: string): Result<bigint, AmountError> {
  const match = AMOUNT.exec(text);
  if (!match) return err('format');
  const [, whole = '', fraction = ''] = match;
  if (whole.length > MAX_INTEGER_DIGITS) return err('too_large');
  const digits = minorDigits(currency);
  if (fraction.length > digits) return err('too_many_decimals');
  const minor = BigInt(whole + fraction.padEnd(digits, '0'));
  if (minor <= 0n) return err('not_positive');
  return ok(minor);
}

/** 1050n KES → "10.50"; -1050n → "-10.50". Exactly the currency's minor digits. */
export function formatAmount(minor: bigint, currency: string): string {
  const digits = minorDigits(currency);
  const negative = minor < 0n;
  const abs = (negative ? -minor : minor).toString().padStart(digits + 1, '0');
  const text = digits === 0 ? abs : `${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
  return negative ? `-${text}` : text;
}

/** A signed amount for ledger lines: "+10.50" / "-10.50". */
export function formatSignedAmount(minor: bigint, currency: string): string {
  return minor < 0n ? formatAmount(minor, currency) : `+${formatAmount(minor, currency)}`;
}

/** The per-currency maximum, from config (major units) to minor units. */
export function maxAmountMinor(currency: string, maxAmounts: Readonly<Record<string, string>>, fallback: string): bigint {
  const major = maxAmounts[currency] ?? fallback;
  return BigInt(major) * 10n ** BigInt(minorDigits(currency));
}

/** What every money field takes, in the words of its error messages. */
const AMOUNT_FORM = 'a decimal string of major units, such as "1500" or "10.50"';

/**
 * The expectation of every `amount` field (its schema carries it, shared/expectations.ts). A JSON
 * number is the usual mistake: the answer shows it as the string to send, when the number's text
 * is exactly what was written (plain digits, at most 15 significant, which a double keeps).
 */
export function amountExpectation(sent: unknown): string {
  if (typeof sent !== 'number') return AMOUNT_FORM;
  const text = String(sent);
  const exact = /^[0-9]+(\.[0-9]+)?$/.test(text) && text.replace('.', '').replace(/^0+/, '').length <= 15;
  return `${AMOUNT_FORM}, not a JSON number: send ${exact ? `"${text}" instead of ${text}` : 'the amount in quotes'} (numbers are refused, never rounded)`;
}

/** The expectation of every `currency` field: a lower-case or padded code is shown as the code to send. */
export function currencyExpectation(sent: unknown): string {
  const letters = typeof sent === 'string' ? sent.trim() : '';
  if (/^[A-Za-z]{3}$/.test(letters) && letters.toUpperCase() !== sent) {
    const upper = letters.toUpperCase();
    return `an upper-case ISO 4217 code: send "${upper}"${letters === sent ? `, not "${sent}"` : ' (no spaces)'}`;
  }
  return 'an upper-case ISO 4217 code of three letters, such as "KES"';
}

export function amountErrorMessage(error: AmountError, currency: string, max?: string): string {
  switch (error) {
    case 'format':
      return `amount must be ${AMOUNT_FORM} (digits, at most one dot, no sign or exponent)`;
    case 'too_many_decimals': {
      const digits = minorDigits(currency);
      return digits === 0
        ? `amount has decimals, but ${currency} has no minor unit: send whole ${currency}, such as "1500"`
        : `amount has more decimals than ${currency} allows: at most ${digits}, such as "10.${'5'.padEnd(digits, '0')}"`;
    }
    case 'not_positive':
      return 'amount must be greater than zero';
    case 'too_large':
      return `amount is above the maximum for ${currency}${max ? ` (${max})` : ''}`;
  }
}
