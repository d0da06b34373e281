import { LedgerInvariantError, type LedgerLine } from './types.ts';

/**
 * The ledger's rules. Every statement that moves money lives in this folder and posts a
 * balanced transaction in the same statement as the change it records:
 * - wallet-payment.ts: a wallet debit (conditional UPDATE … WHERE balance >= amount) and the
 *   merchant's credit;
 * - settlement-posting.ts: money in from a provider, to the merchant's funds or a wallet.
 * verify.ts checks the whole ledger after the fact.
 */

/** Every posting must sum to zero per currency; anything else stops the request loudly. */
export function assertBalanced(lines: LedgerLine[]): void {
  if (lines.length < 2) throw new LedgerInvariantError('a ledger transaction needs at least two lines');
  const sums = new Map<string, bigint>();
  for (const line of lines) {
    if (line.amount === 0n) throw new LedgerInvariantError(`zero amount on ${line.account}`);
    sums.set(line.currency, (sums.get(line.currency) ?? 0n) + line.amount);
  }
  for (const [currency, sum] of sums) {
    if (sum !== 0n) throw new LedgerInvariantError(`ledger transaction does not balance in ${currency}: ${sum}`);
  }
}
