import type { Selectable } from 'kysely';
import type { TransfersTable } from '../db/schema.ts';
import { formatAmount } from '../shared/money.ts';

export type TransferRow = Selectable<TransfersTable>;

/** The public transfer: amounts, failure, metadata and times rendered as payments render them. */
export function transferView(row: TransferRow) {
  return {
    id: row.id,
    object: 'transfer' as const,
    reference: row.reference,
    status: row.status,
    amount: formatAmount(BigInt(row.amount), row.currency),
    currency: row.currency,
    source_wallet_id: row.source_wallet_id,
    destination_wallet_id: row.destination_wallet_id,
    failure: row.failure_code ? { code: row.failure_code, message: row.failure_message ?? '' } : null,
    description: row.description,
    metadata: row.metadata as Record<string, string>,
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
  };
}

export type TransferView = ReturnType<typeof transferView>;
