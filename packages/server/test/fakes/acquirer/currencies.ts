// Amounts are integers in the currency's minor unit (docs.stripe.com/currencies): the exponent is
// 0 for Stripe's zero-decimal currencies, 3 for the three-decimal ones (whose last digit must be
// 0), 2 for every other. ISK is zero-decimal in fact but kept two-decimal in the API, so its
// amounts must be whole multiples of 100. Stripe's page also lists UGX under those "special
// cases" (two-decimal, multiples of 100) while listing it as zero-decimal above: the fake follows
// the zero-decimal list, as the Purse contract says, and `currencyExponents` overrides any entry.
import { invalidRequest } from './errors.ts';

/** Stripe's zero-decimal currencies. */
export const ZERO_DECIMAL_CURRENCIES = [
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
] as const;

export const THREE_DECIMAL_CURRENCIES = ['bhd', 'jod', 'kwd', 'omr', 'tnd'] as const;

/** Charged in whole units though written with two decimals: the amount must divide by 100. */
const WHOLE_UNITS_IN_TWO_DECIMALS = ['isk'];

/** Stripe's presentment currencies for cards (the three-decimal ones are supported by the API too). */
const SUPPORTED = new Set(
  (
    'usd aed afn all amd ang aoa ars aud awg azn bam bbd bdt bgn bif bmd bnd bob brl bsd bwp byn bzd cad cdf chf clp ' +
    'cny cop crc cve czk djf dkk dop dzd egp etb eur fjd fkp gbp gel gip gmd gnf gtq gyd hkd hnl htg huf idr ils inr ' +
    'isk jmd jpy kes kgs khr kmf krw kyd kzt lak lbp lkr lrd lsl mad mdl mga mkd mmk mnt mop mur mvr mwk mxn myr mzn ' +
    'nad ngn nio nok npr nzd pab pen pgk php pkr pln pyg qar ron rsd rub rwf sar sbd scr sek sgd shp sle sos srd std ' +
    'szl thb tjs top try ttd twd tzs uah ugx uyu uzs vnd vuv wst xaf xcd xof xpf yer zar zmw bhd jod kwd omr tnd'
  ).split(' '),
);

/** How many digits an amount may have: 8 in general, more where Stripe allows it for cards. */
const MAX_DIGITS: Record<string, number> = { idr: 12, lbp: 11, inr: 9, cop: 10, huf: 10, jpy: 10 };

export type Exponents = Readonly<Record<string, number>>;

export function exponentOf(currency: string, overrides: Exponents = {}): number {
  const override = overrides[currency];
  if (override !== undefined) return override;
  if ((ZERO_DECIMAL_CURRENCIES as readonly string[]).includes(currency)) return 0;
  if ((THREE_DECIMAL_CURRENCIES as readonly string[]).includes(currency)) return 3;
  return 2;
}

/** Checks `currency` (lower-case, supported) and `amount` (positive, within the digits, the rounding rules). */
export function checkAmount(amount: number, currency: string, overrides: Exponents = {}): void {
  if (!/^[a-z]{3}$/.test(currency) || !SUPPORTED.has(currency)) {
    throw invalidRequest(`Invalid currency: ${currency}. Stripe currently supports these currencies: lower-case ISO codes.`, {
      param: 'currency',
    });
  }
  if (amount < 1) throw invalidRequest('Amount must be at least 1 minor unit.', { code: 'amount_too_small', param: 'amount' });
  if (String(amount).length > (MAX_DIGITS[currency] ?? 8)) {
    throw invalidRequest(`Amount must be no more than ${MAX_DIGITS[currency] ?? 8} digits.`, { code: 'amount_too_large', param: 'amount' });
  }
  if (overrides[currency] === undefined && WHOLE_UNITS_IN_TWO_DECIMALS.includes(currency) && amount % 100 !== 0) {
    throw invalidRequest(`Invalid amount. Currency ${currency.toUpperCase()} is effectively zero-decimal: the amount must divide by 100.`, {
      code: 'invalid_charge_amount_no_decimal_compatible',
      param: 'amount',
    });
  }
  if (exponentOf(currency, overrides) === 3 && amount % 10 !== 0) {
    throw invalidRequest('Invalid amount: three-decimal currencies must be rounded to the nearest ten (last digit 0).', {
      param: 'amount',
    });
  }
}

/** "KES 10.50", "UGX 1500": the major-unit amount, for the challenge page. */
export function formatAmount(amount: number, currency: string, overrides: Exponents = {}): string {
  const exponent = exponentOf(currency, overrides);
  const digits = String(amount).padStart(exponent + 1, '0');
  const major = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return `${currency.toUpperCase()} ${major}`;
}
