import { type Static, Type } from 'typebox';
import { readTime } from '../charges/filters.ts';
import {
  Amount,
  amountSchema,
  CallbackUrl,
  ChargeStatus,
  Currency,
  Description,
  Failure,
  Metadata,
  meansInput,
  Reference,
} from '../charges/schemas.ts';
import type { OutflowStatus } from '../db/schema.ts';
import { LateOutcomeSchema } from '../events/late-outcome.ts';
import { ListQuery } from '../shared/pagination.ts';
import type { OutflowFilters } from './store/read.ts';

export const REFUND_REASONS = ['requested_by_customer', 'duplicate', 'fraudulent'] as const;

const PaymentId = Type.String({
  maxLength: 64,
  description: 'The succeeded payment to refund.',
  examples: ['pay_01jd6x8v1ffq8v2k3m4n5p6q7r'],
});

export const CreateRefundBody = Type.Object(
  {
    reference: Reference,
    payment_id: PaymentId,
    amount: Type.Optional(
      amountSchema({
        description: "Decimal string of major units, > 0, in the payment's currency. Default: all that is still refundable.",
        examples: ['500.00'],
      }),
    ),
    reason: Type.Optional(Type.Union([...REFUND_REASONS.map((r) => Type.Literal(r)), Type.Null()])),
    description: Type.Optional(Description),
    metadata: Type.Optional(Metadata),
    callback_url: Type.Optional(CallbackUrl),
  },
  {
    additionalProperties: false,
    examples: [
      { reference: 'refund-1001-1', payment_id: 'pay_01jd6x8v1ffq8v2k3m4n5p6q7r', amount: '500.00', reason: 'requested_by_customer' },
    ],
  },
);

export const PayoutDestinationInput = meansInput(
  ['mobile_money', 'wallet'],
  'The object named by `type` must be present, and no other. A wallet must be yours.',
);

export const CreatePayoutBody = Type.Object(
  {
    reference: Reference,
    amount: Amount,
    currency: Currency,
    destination: PayoutDestinationInput,
    description: Type.Optional(Description),
    metadata: Type.Optional(Metadata),
    callback_url: Type.Optional(CallbackUrl),
  },
  {
    additionalProperties: false,
    examples: [
      {
        reference: 'payout-2026-11-23',
        amount: '2500.00',
        currency: 'KES',
        destination: { type: 'mobile_money', mobile_money: { phone_number: '+254712345678', provider: 'mpesa' } },
        description: 'Weekly settlement',
      },
    ],
  },
);

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });

export const DestinationView = Type.Object(
  {
    type: Type.Union([Type.Literal('mobile_money'), Type.Literal('wallet'), Type.Literal('card')]),
    mobile_money: Type.Optional(Type.Object({ phone_number: Type.String(), provider: Nullable(Type.String()) })),
    wallet: Type.Optional(Type.Object({ wallet_id: Type.String() })),
    card: Type.Optional(Type.Object({ brand: Type.String(), last4: Type.String() })),
  },
  { $id: 'Destination', description: 'Where the money goes; a refund mirrors the means of its payment.' },
);

const common = {
  reference: Type.String(),
  status: ChargeStatus,
  amount: Type.String({ examples: ['500.00'] }),
  currency: Type.String(),
  destination: { $ref: 'Destination#' } as unknown as typeof DestinationView,
  failure: Failure,
  provider_reference: Nullable(Type.String()),
  description: Nullable(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  callback_url: Nullable(Type.String()),
  late_outcome: LateOutcomeSchema,
  livemode: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  completed_at: Nullable(Timestamp),
};

export const RefundView = Type.Object(
  {
    id: Type.String({ examples: ['re_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('refund'),
    payment_id: Type.String(),
    reason: Nullable(Type.String()),
    ...common,
  },
  { $id: 'Refund' },
);

export const PayoutView = Type.Object(
  { id: Type.String({ examples: ['po_01jd6x8v1ffq8v2k3m4n5p6q7r'] }), object: Type.Literal('payout'), ...common },
  { $id: 'Payout' },
);

const listFilters = {
  ...ListQuery,
  reference: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  status: Type.Optional(ChargeStatus),
  created_gte: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339 time: created at or after.' })),
  created_lte: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339 time: created at or before.' })),
};

export const RefundListQuery = Type.Object(
  { ...listFilters, payment_id: Type.Optional(Type.String({ maxLength: 64, description: 'Refunds of this payment.' })) },
  { additionalProperties: false },
);
export const PayoutListQuery = Type.Object(listFilters, { additionalProperties: false });

export function readOutflowFilters(query: Static<typeof RefundListQuery>): OutflowFilters {
  const filters: OutflowFilters = {};
  if (query.reference !== undefined) filters.reference = query.reference;
  if (query.status !== undefined) filters.status = query.status as OutflowStatus;
  if (query.payment_id !== undefined) filters.paymentId = query.payment_id;
  const gte = readTime(query.created_gte, 'created_gte');
  const lte = readTime(query.created_lte, 'created_lte');
  if (gte) filters.createdGte = gte;
  if (lte) filters.createdLte = lte;
  return filters;
}
