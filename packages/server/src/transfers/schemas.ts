import { type Static, Type } from 'typebox';
import { readTime } from '../charges/filters.ts';
import { Amount, Currency, Description, Failure, Metadata, Reference } from '../charges/schemas.ts';
import type { TransferStatus } from '../db/schema.ts';
import { ListQuery } from '../shared/pagination.ts';
import type { TransferFilters } from './store.ts';

const WalletId = (description: string) => Type.String({ maxLength: 64, description, examples: ['wal_01jd6x8v1ffq8v2k3m4n5p6q7r'] });

export const CreateTransferBody = Type.Object(
  {
    reference: Reference,
    amount: Amount,
    currency: Currency,
    source_wallet_id: WalletId('The wallet debited: same merchant, same currency.'),
    destination_wallet_id: WalletId('The wallet credited: same merchant, same currency, not the source.'),
    description: Type.Optional(Description),
    metadata: Type.Optional(Metadata),
  },
  {
    additionalProperties: false,
    examples: [
      {
        reference: 'move-2001',
        amount: '250.00',
        currency: 'KES',
        source_wallet_id: 'wal_01jd6x8v1ffq8v2k3m4n5p6q7r',
        destination_wallet_id: 'wal_01jd6x9c4tfq8v2k3m4n5p6q7s',
        description: 'Refund of order 1001 to the shared wallet',
        metadata: { order_id: '1001' },
      },
    ],
  },
);

const Status = Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]);

export const TransferView = Type.Object(
  {
    id: Type.String({ examples: ['tr_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('transfer'),
    reference: Type.String(),
    status: Status,
    amount: Type.String({ examples: ['250.00'] }),
    currency: Type.String(),
    source_wallet_id: Type.String(),
    destination_wallet_id: Type.String(),
    failure: Failure,
    description: Type.Union([Type.String(), Type.Null()]),
    metadata: Type.Record(Type.String(), Type.String()),
    livemode: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Transfer' },
);

export const TransferListQuery = Type.Object(
  {
    ...ListQuery,
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    status: Type.Optional(Status),
    wallet_id: Type.Optional(Type.String({ maxLength: 64, description: 'Transfers from or to this wallet.' })),
    created_gte: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339 time: created at or after.' })),
    created_lte: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339 time: created at or before.' })),
  },
  { additionalProperties: false },
);

export function readTransferFilters(query: Static<typeof TransferListQuery>): TransferFilters {
  const filters: TransferFilters = {};
  if (query.reference !== undefined) filters.reference = query.reference;
  if (query.status !== undefined) filters.status = query.status as TransferStatus;
  if (query.wallet_id !== undefined) filters.walletId = query.wallet_id;
  const gte = readTime(query.created_gte, 'created_gte');
  const lte = readTime(query.created_lte, 'created_lte');
  if (gte) filters.createdGte = gte;
  if (lte) filters.createdLte = lte;
  return filters;
}
