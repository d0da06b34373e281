import { type Static, Type } from 'typebox';
import { readTime } from '../charges/filters.ts';
import { currencySchema } from '../charges/schemas.ts';
import { ListQuery } from '../shared/pagination.ts';
import { BALANCE_SOURCE_TYPES, type BalanceFilters } from './store.ts';

const SourceType = Type.Union(BALANCE_SOURCE_TYPES.map((t) => Type.Literal(t)));

export const BalanceTransactionView = Type.Object(
  {
    id: Type.String({ examples: ['len_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('balance_transaction'),
    amount: Type.String({ description: 'Signed: + money in, - money out.', examples: ['+1500.00'] }),
    currency: Type.String({ examples: ['KES'] }),
    balance_after: Type.String({
      description: "The balance of the merchant's funds in this currency right after this entry (never a filtered subtotal).",
      examples: ['4250.00'],
    }),
    source_type: SourceType,
    source_id: Type.String({ description: 'The payment, refund or payout that moved the balance.' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'BalanceTransaction' },
);

export const BalanceTransactionListQuery = Type.Object(
  {
    ...ListQuery,
    currency: Type.Optional(currencySchema({ description: 'ISO 4217 code, upper case.' })),
    source_type: Type.Optional(SourceType),
    created_gte: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339 time: created at or after.' })),
    created_lte: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339 time: created at or before.' })),
  },
  { additionalProperties: false },
);

export type BalanceTransactionQuery = Static<typeof BalanceTransactionListQuery>;

export function readBalanceFilters(query: BalanceTransactionQuery): BalanceFilters & { currency?: string } {
  const filters: BalanceFilters & { currency?: string } = {};
  if (query.currency !== undefined) filters.currency = query.currency;
  if (query.source_type !== undefined) filters.sourceType = query.source_type;
  const gte = readTime(query.created_gte, 'created_gte');
  const lte = readTime(query.created_lte, 'created_lte');
  if (gte) filters.createdGte = gte;
  if (lte) filters.createdLte = lte;
  return filters;
}
