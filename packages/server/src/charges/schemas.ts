import { type Static, type TSchema, Type } from 'typebox';
import { METHOD_TYPES, type MethodType } from '../db/schema.ts';
import { LateOutcomeSchema } from '../events/late-outcome.ts';
import { withExpectation } from '../shared/expectations.ts';
import { amountExpectation, currencyExpectation } from '../shared/money.ts';

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
/** Every money field of a request (payments, top-ups, refunds, payouts, transfers): one schema, one error message. */
export function amountSchema(options: { description: string; examples: string[] }) {
  return withExpectation(Type.String({ maxLength: 32, ...options }), amountExpectation);
}
export const Amount = amountSchema({
  description: 'Decimal string of major units, > 0, at most the currency\'s minor digits ("1500" UGX, "10.50" KES).',
  examples: ['1500.00'],
});
/** Every currency of a request or a filter. */
export function currencySchema(options: { description: string; examples?: string[] }) {
  return withExpectation(Type.String({ pattern: '^[A-Z]{3}$', ...options }), currencyExpectation);
}
export const Currency = currencySchema({ description: 'Upper-case ISO 4217 code.', examples: ['KES'] });
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

const MEANS_INPUTS = { mobile_money: MobileMoneyInput, card: CardInput, wallet: WalletMethodInput };
type MeansInputs = typeof MEANS_INPUTS;
/** One variant per type: `{ type: 'card', card: {…} }` and so on, never two objects. */
export type MeansInput<T extends MethodType> = { [K in T]: { type: K } & { [P in K]: Static<MeansInputs[P]> } }[T];

/** The shared schema of each variant (registered with addSchema), named in the document's discriminator mapping. */
const VARIANT_IDS = { mobile_money: 'MobileMoneyMethod', card: 'CardMethod', wallet: 'WalletMethod' } as const;

function meansVariant(type: MethodType) {
  const others = METHOD_TYPES.filter((other) => other !== type).map((other) => [other, false]);
  return {
    $id: VARIANT_IDS[type],
    type: 'object',
    description: `type ${type}: the ${type} object, and no other.`,
    properties: { type: Type.Literal(type), [type]: MEANS_INPUTS[type], ...Object.fromEntries(others) },
    required: ['type', type],
  } as unknown as TSchema;
}

/** Register once, before the routes that take a means (payments, top-ups, payouts). */
export const MEANS_VARIANTS = METHOD_TYPES.map(meansVariant);

/**
 * A means of payment (payment_method, a top-up's source) or of payout (destination): `type` names
 * the object that must be present, and no other. Validated and documented as a oneOf discriminated
 * on `type` (Ajv's `discriminator` option), so the OpenAPI document, and every client generated
 * from it, has one variant per type. The outer object lists the keys first, so an unknown field is
 * parameter_unknown and an unaccepted type parameter_invalid on `type` before a variant is chosen;
 * in the variant, a missing object is parameter_missing and another means' object (schema `false`)
 * parameter_invalid on that object.
 */
export function meansInput<T extends MethodType>(types: readonly T[], description: string) {
  return Type.Unsafe<MeansInput<T>>({
    type: 'object',
    description,
    properties: { type: methodTypes(types), ...Object.fromEntries(types.map((type) => [type, {}])) },
    required: ['type'],
    additionalProperties: false,
    discriminator: { propertyName: 'type' },
    oneOf: types.map((type) => ({ $ref: `${VARIANT_IDS[type]}#` })),
  } as unknown as TSchema);
}

export const paymentMethodInput = <T extends MethodType>(types: readonly T[]) =>
  meansInput(types, 'The object named by `type` must be present, and no other.');

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
    card: Type.Optional(
      Type.Object({
        brand: Type.String(),
        last4: Type.String(),
        exp_month: Type.Integer(),
        exp_year: Type.Integer(),
        three_d_secure: Type.Optional(
          Type.Union(
            [
              Type.Object({ result: Type.Union([Type.Literal('authenticated'), Type.Literal('failed'), Type.Literal('not_required')]) }),
              Type.Null(),
            ],
            { description: 'Payments only: what 3-D Secure decided, once the acquirer said (null before, or when it did not say).' },
          ),
        ),
      }),
    ),
    wallet: Type.Optional(Type.Object({ wallet_id: Type.String() })),
  },
  { $id: 'PaymentMethodView' },
);

export const Failure = Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()], {
  description: 'Why the object failed; null unless status is failed.',
});

export const ChargeStatus = Type.Union(
  [
    Type.Literal('pending'),
    Type.Literal('requires_action'),
    Type.Literal('requires_capture'),
    Type.Literal('succeeded'),
    Type.Literal('failed'),
    Type.Literal('canceled'),
  ],
  {
    description:
      'pending: waiting on the provider. Cards only: requires_action (the payer must complete 3-D Secure at next_action), ' +
      'requires_capture (authorised, a hold: capture or cancel it). Final: succeeded, failed, canceled.',
  },
);

export const CaptureMethod = Type.Union([Type.Literal('automatic'), Type.Literal('manual')], {
  description:
    'Cards: automatic (default) captures when authorised; manual authorises only, and POST /v1/payments/{id}/capture takes the money.',
});

export const NextAction = Type.Union(
  [
    Type.Object({
      type: Type.Literal('redirect_to_url'),
      redirect_to_url: Type.Object({
        url: Type.String({ description: "A Purse URL: send the payer's browser there to complete 3-D Secure." }),
        return_url: Type.Union([Type.String(), Type.Null()], {
          description: 'Where Purse sends the browser afterwards, with ?payment_id=… (a top-up: ?topup_id=…).',
        }),
      }),
      expires_at: Type.String({ format: 'date-time', description: 'An unfinished challenge fails authentication_failed then.' }),
    }),
    Type.Null(),
  ],
  { description: 'What the payer must do; null unless status is requires_action.' },
);

export const CancellationReason = Type.Union(
  [
    Type.Literal('requested_by_customer'),
    Type.Literal('duplicate'),
    Type.Literal('fraudulent'),
    Type.Literal('abandoned'),
    Type.Literal('expired'),
    Type.Null(),
  ],
  {
    description:
      'Why a canceled payment was canceled: a reason the merchant gave, or expired (the hold was not captured by capture_before).',
  },
);

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
    capture_method: CaptureMethod,
    amount_capturable: Type.String({ description: 'What a capture may take now ("0.00" unless requires_capture).', examples: ['0.00'] }),
    amount_received: Type.String({
      description: 'What reached the merchant: the captured amount once succeeded, else "0.00". Refunds are capped by it.',
      examples: ['1500.00'],
    }),
    capture_before: Nullable(Timestamp),
    next_action: NextAction,
    cancellation_reason: CancellationReason,
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
    next_action: NextAction,
  },
  { $id: 'Topup' },
);
