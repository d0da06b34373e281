import { Type } from 'typebox';
import { METHOD_TYPES, type MethodType } from '../db/schema.ts';
import { LateOutcomeSchema } from '../events/late-outcome.ts';

/**
 * Request and response schemas shared by payments and top-ups. Types and shapes are checked
 * by Fastify (no coercion, unknown fields refused); money, Luhn, expiry and URLs by input.ts,
 * which gives sharper messages than a JSON-schema pattern could.
 */

export const Reference = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'Unique per merchant and resource type; case-sensitive; no control characters or surrounding spaces.',
  examples: ['order-1001'],
});
export const Amount = Type.String({
  maxLength: 32,
  description: 'Decimal string of major units, > 0, at most the currency\'s minor digits ("1500" UGX, "10.50" KES).',
  examples: ['1500.00'],
});
export const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'Upper-case ISO 4217 code.', examples: ['KES'] });
export const Metadata = Type.Record(Type.String({ minLength: 1, maxLength: 40 }), Type.String({ maxLength: 500 }), {
  maxProperties: 50,
  // TypeBox drops the key schema's limits (patternProperties "^.*$"); propertyNames enforces them.
  propertyNames: { minLength: 1, maxLength: 40 },
  description: 'Up to 50 string keys (≤ 40 chars) with string values (≤ 500 chars).',
  examples: [{ order_id: '1001' }],
});
export const Description = Type.String({ maxLength: 255 });
export const CallbackUrl = Type.String({
  maxLength: 2048,
  description:
    "Absolute http(s) URL that also receives this object's events; no credentials; no private or loopback address unless the operator allows it.",
});
export const PhoneNumber = Type.String({ maxLength: 16, description: 'E.164, e.g. +254712345678.', examples: ['+254712345678'] });

export const MobileMoneyInput = Type.Object(
  {
    phone_number: PhoneNumber,
    provider: Type.Optional(
      Type.Union([Type.Literal('mtn'), Type.Literal('mpesa')], {
        description:
          "The mobile-money network: mtn (MTN MoMo) or mpesa (Safaricom M-Pesa). Absent: the network of the number's country calling code.",
        examples: ['mpesa'],
      }),
    ),
  },
  { additionalProperties: false },
);
export const CardInput = Type.Object(
  {
    number: Type.String({ maxLength: 19, description: 'Digits only; never stored, logged or returned.', examples: ['4242424242424242'] }),
    exp_month: Type.Integer({ minimum: 1, maximum: 12 }),
    exp_year: Type.Integer({ minimum: 1000, maximum: 9999 }),
    cvc: Type.String({ maxLength: 4, description: '3–4 digits; never stored.' }),
    holder_name: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export const WalletMethodInput = Type.Object({ wallet_id: Type.String({ maxLength: 64 }) }, { additionalProperties: false });

const methodTypes = (types: readonly MethodType[]) => Type.Union(types.map((t) => Type.Literal(t)));

export function paymentMethodInput(types: readonly MethodType[]) {
  return Type.Object(
    {
      type: methodTypes(types),
      ...(types.includes('mobile_money') ? { mobile_money: Type.Optional(MobileMoneyInput) } : {}),
      ...(types.includes('card') ? { card: Type.Optional(CardInput) } : {}),
      ...(types.includes('wallet') ? { wallet: Type.Optional(WalletMethodInput) } : {}),
    },
    { additionalProperties: false, description: 'The object named by `type` must be present, and no other.' },
  );
}

export const CustomerInput = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    email: Type.Optional(Type.String({ maxLength: 254 })),
    phone_number: Type.Optional(PhoneNumber),
  },
  { additionalProperties: false },
);

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });

export const PaymentMethodView = Type.Object(
  {
    type: methodTypes(METHOD_TYPES),
    mobile_money: Type.Optional(Type.Object({ phone_number: Type.String(), provider: Type.Union([Type.String(), Type.Null()]) })),
    card: Type.Optional(Type.Object({ brand: Type.String(), last4: Type.String(), exp_month: Type.Integer(), exp_year: Type.Integer() })),
    wallet: Type.Optional(Type.Object({ wallet_id: Type.String() })),
  },
  { $id: 'PaymentMethodView' },
);

export const Failure = Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()], {
  description: 'Why the object failed; null unless status is failed.',
});

export const ChargeStatus = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]);

const commonViewFields = {
  reference: Type.String(),
  status: ChargeStatus,
  amount: Type.String({ examples: ['1500.00'] }),
  currency: Type.String(),
  description: Nullable(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  failure: Failure,
  provider_reference: Nullable(Type.String()),
  callback_url: Nullable(Type.String()),
  livemode: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  completed_at: Nullable(Timestamp),
  expires_at: Nullable(Timestamp),
  late_outcome: LateOutcomeSchema,
};

export const PaymentView = Type.Object(
  {
    id: Type.String({ examples: ['pay_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('payment'),
    ...commonViewFields,
    amount_refunded: Type.String({ description: 'Pending and succeeded refunds of this payment ("0.00" when none).', examples: ['0.00'] }),
    payment_method: { $ref: 'PaymentMethodView#' } as unknown as typeof PaymentMethodView,
    customer: Type.Union([
      Type.Object({ name: Nullable(Type.String()), email: Nullable(Type.String()), phone_number: Nullable(Type.String()) }),
      Type.Null(),
    ]),
  },
  { $id: 'Payment' },
);

export const TopupView = Type.Object(
  {
    id: Type.String({ examples: ['top_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('topup'),
    ...commonViewFields,
    wallet_id: Type.String(),
    source: { $ref: 'PaymentMethodView#' } as unknown as typeof PaymentMethodView,
  },
  { $id: 'Topup' },
);
