import { formatAmount, formatSignedAmount } from '../shared/money.ts';
import type { WalletRow } from './store.ts';

export function walletView(row: WalletRow) {
  return {
    id: row.id,
    object: 'wallet' as const,
    currency: row.currency,
    balance: formatAmount(BigInt(row.balance), row.currency),
    status: row.status,
    reference: row.reference,
    holder: row.holder as { name: string | null; phone_number: string | null; email: string | null } | null,
    metadata: row.metadata as Record<string, string>,
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export type WalletView = ReturnType<typeof walletView>;

export function walletTransactionView(row: {
  id: string;
  amount: string;
  currency: string;
  balance_after: string | null;
  source_type: string;
  source_id: string;
  created_at: Date;
}) {
  return {
    id: row.id,
    object: 'wallet_transaction' as const,
    amount: formatSignedAmount(BigInt(row.amount), row.currency),
    currency: row.currency,
    balance_after: formatAmount(BigInt(row.balance_after ?? '0'), row.currency),
    source_type: row.source_type as 'payment' | 'topup' | 'transfer' | 'refund' | 'payout',
    source_id: row.source_id,
    created_at: row.created_at.toISOString(),
  };
}
