import { LedgerInvariantError, type LedgerLine } from './types.ts';

/**
 * The ledger's rules. This folder writes ledger_transactions, ledger_entries and wallet
 * balances, as SQL fragments the domain that moves money composes into its own statement, so a
 * posting always commits with the change it records:
 * - posting.ts: a balanced transaction and its entries;
 * - wallet-balance.ts: a wallet debit (conditional UPDATE … WHERE balance >= amount) or credit;
 * - accounts.ts: account names and entry ids.
 * verify.ts checks the whole ledger after the fact. It imports no domain folder.
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
