import { formatAmount, formatSignedAmount } from '../shared/money.ts';
import { csvRecord } from './csv.ts';
import type { BalanceEntryRow, BalanceSourceType } from './store.ts';

export function balanceTransactionView(row: BalanceEntryRow) {
  return {
    id: row.id,
    object: 'balance_transaction' as const,
    amount: formatSignedAmount(BigInt(row.amount), row.currency),
    currency: row.currency,
    balance_after: formatAmount(BigInt(row.balance_after), row.currency),
    source_type: row.source_type as BalanceSourceType,
    source_id: row.source_id,
    created_at: row.created_at.toISOString(),
  };
}

export const STATEMENT_COLUMNS = ['id', 'created_at', 'source_type', 'source_id', 'currency', 'amount', 'balance_after'] as const;

/** A statement line: the list's fields, the amount as a plain signed number (no "+", see csv.ts). */
export function statementLine(row: Omit<BalanceEntryRow, 'balance_after'>, balanceAfter: bigint): string {
  return csvRecord([
    row.id,
    row.created_at.toISOString(),
    row.source_type,
    row.source_id,
    row.currency,
    formatAmount(BigInt(row.amount), row.currency),
    formatAmount(balanceAfter, row.currency),
  ]);
}
