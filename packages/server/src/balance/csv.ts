/**
 * RFC 4180 fields: quoted when they hold a comma, a quote or a line break, quotes doubled.
 * The statement's fields are ids, ISO times, currency codes and amounts, so today none needs
 * it; the escape keeps a future free-text column from breaking the file.
 *
 * Formula injection (a cell starting with =, +, - or @ run by a spreadsheet) is not a risk here:
 * no field carries text a payer or merchant typed, and amounts are written without a leading +
 * ("-10.50" is a negative number to every spreadsheet, not a formula).
 */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One record, CRLF-terminated as RFC 4180 writes them. */
export function csvRecord(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}
