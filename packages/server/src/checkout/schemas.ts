import { type Static, Type } from 'typebox';
import { readTime } from '../charges/filters.ts';
import { Amount, CaptureMethod, Currency, CustomerInput, Description, Metadata } from '../charges/schemas.ts';
import { ListQuery } from '../shared/pagination.ts';
import type { SessionFilters } from './store.ts';

/** The means a payer may choose on the hosted page. */
export const CHECKOUT_METHOD_TYPES = ['card', 'mobile_money'] as const;
export type CheckoutMethodType = (typeof CHECKOUT_METHOD_TYPES)[number];

export const PaymentMethodTypes = Type.Array(Type.Union(CHECKOUT_METHOD_TYPES.map((t) => Type.Literal(t))), {
  minItems: 1,
  maxItems: 2,
  uniqueItems: true,
  description: 'What the payer may choose on the page; ["card", "mobile_money"] when absent.',
});

/** A session's reference leaves room for the attempt suffix of its payments (`/attempt-N`, within 128). */
export const SESSION_REFERENCE_MAX = 116;

const PageUrl = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });

export const CreateCheckoutSessionBody = Type.Object(
  {
    reference: Type.String({
      minLength: 1,
      maxLength: SESSION_REFERENCE_MAX,
      description:
        'Unique per merchant among checkout sessions (same rules as payments). Each attempt is a payment whose reference is ' +
        'this one plus `/attempt-N`, hence at most 116 characters.',
      examples: ['order-1001'],
    }),
    amount: Amount,
    currency: Currency,
    payment_method_types: Type.Optional(PaymentMethodTypes),
    capture_method: Type.Optional({ ...CaptureMethod, description: 'Cards only: manual needs payment_method_types ["card"].' }),
    success_url: PageUrl('Where the browser goes once the session is complete, with ?session_id=cs_… (absolute http(s) URL).'),
    cancel_url: PageUrl('Where the page\'s "Cancel" link goes (absolute http(s) URL).'),
    customer: Type.Optional(CustomerInput),
    description: Type.Optional(Description),
    metadata: Type.Optional(Metadata),
    expires_in: Type.Optional(
      Type.Integer({ minimum: 300, maximum: 86_400, description: 'Seconds until the session expires: 300 to 86400, 3600 by default.' }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        reference: 'order-1001',
        amount: '1500.00',
        currency: 'KES',
        success_url: 'https://shop.example/paid',
        cancel_url: 'https://shop.example/cart',
        description: 'Order 1001',
      },
    ],
  },
);
export type CreateCheckoutSessionInput = Static<typeof CreateCheckoutSessionBody>;

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });
export const SessionStatus = Type.Union([Type.Literal('open'), Type.Literal('complete'), Type.Literal('expired')]);

export const CheckoutSessionView = Type.Object(
  {
    id: Type.String({ examples: ['cs_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('checkout_session'),
    reference: Type.String(),
    status: SessionStatus,
    payment_status: Type.Union([Type.Literal('unpaid'), Type.Literal('authorized'), Type.Literal('paid')], {
      description: 'From the payment that completed the session: paid (succeeded), authorized (requires_capture), else unpaid.',
    }),
    url: Type.String({ description: 'The hosted page (/pay/…): send the payer there. Its token is unguessable and names nothing.' }),
    amount: Type.String(),
    currency: Type.String(),
    payment_method_types: Type.Array(Type.String()),
    capture_method: Type.String(),
    success_url: Nullable(Type.String()),
    cancel_url: Nullable(Type.String()),
    payment_id: Nullable(Type.String({ description: 'The payment that completed the session.' })),
    payment_link: Nullable(Type.String({ description: 'The payment link this session was opened from (plink_…).' })),
    customer: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]),
    description: Nullable(Type.String()),
    metadata: Type.Record(Type.String(), Type.String()),
    livemode: Type.Boolean(),
    expires_at: Timestamp,
    created_at: Timestamp,
    completed_at: Type.Union([Timestamp, Type.Null()], { description: 'When it became complete or expired.' }),
  },
  { $id: 'CheckoutSession' },
);

export const SessionListQuery = Type.Object(
  {
    ...ListQuery,
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    status: Type.Optional(SessionStatus),
    payment_link: Type.Optional(Type.String({ maxLength: 64, description: 'Sessions opened from this payment link.' })),
    created_gte: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339 time: created at or after.' })),
    created_lte: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339 time: created at or before.' })),
  },
  { additionalProperties: false },
);

export function readSessionFilters(query: Static<typeof SessionListQuery>): SessionFilters {
  const filters: SessionFilters = {};
  if (query.reference !== undefined) filters.reference = query.reference;
  if (query.status !== undefined) filters.status = query.status;
  if (query.payment_link !== undefined) filters.paymentLinkId = query.payment_link;
  const gte = readTime(query.created_gte, 'created_gte');
  const lte = readTime(query.created_lte, 'created_lte');
  if (gte) filters.createdGte = gte;
  if (lte) filters.createdLte = lte;
  return filters;
}
