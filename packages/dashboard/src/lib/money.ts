// Money stays a decimal string from the API to the screen: formatting and arithmetic never go
// through floats (a float cannot hold 0.10, and UGX amounts run past 2^53 minor units in sums).

const formatters = new Map<string, Intl.NumberFormat>();

function formatterFor(currency: string): Intl.NumberFormat {
  let formatter = formatters.get(currency);
  if (!formatter) {
    formatter = new Intl.NumberFormat(undefined, { style: 'currency', currency });
    formatters.set(currency, formatter);
  }
  return formatter;
}

/**
 * "1500.50" KES → "KES 1,500.50" in the browser's locale. Intl formats a string operand as an exact
 * decimal (Intl.NumberFormat v3), so the digits shown are the digits the API sent. A leading "+"
 * (wallet and balance lines) is kept as a sign.
 */
export function formatMoney(amount: string, currency: string): string {
  const unsigned = amount.replace(/^\+/, '');
  const text = formatterFor(currency).format(unsigned as unknown as number);
  return amount.startsWith('+') ? `+${text}` : text;
}

/** The number of fraction digits of a canonical API amount ("10.50" → 2, "1500" → 0). */
export function fractionDigits(amount: string): number {
  const dot = amount.indexOf('.');
  return dot === -1 ? 0 : amount.length - dot - 1;
}

/** A canonical decimal string as a bigint of minor units, at `digits` fraction digits. */
export function toMinor(amount: string, digits: number): bigint {
  const negative = amount.startsWith('-');
  const [whole = '0', fraction = ''] = amount.replace(/^[+-]/, '').split('.');
  const minor = BigInt(whole + fraction.padEnd(digits, '0').slice(0, digits));
  return negative ? -minor : minor;
}

/** Minor units back to the API's decimal string ("1050", 2 → "10.50"). */
export function fromMinor(minor: bigint, digits: number): string {
  const negative = minor < 0n;
  const text = (negative ? -minor : minor).toString().padStart(digits + 1, '0');
  const whole = digits === 0 ? text : text.slice(0, -digits);
  const sign = negative ? '-' : '';
  return digits === 0 ? sign + whole : `${sign}${whole}.${text.slice(-digits)}`;
}

/**
 * What a succeeded payment can still give back, exactly: what was received (all of the amount, or
 * what a partial capture took) − amount_refunded.
 */
export function refundable(payment: { amount: string; amount_received?: string; amount_refunded?: string | null }): string {
  const digits = fractionDigits(payment.amount);
  const received = toMinor(payment.amount_received ?? payment.amount, digits);
  return fromMinor(received - toMinor(payment.amount_refunded ?? '0', digits), digits);
}
