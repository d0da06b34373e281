import { Type } from 'typebox';
import { amountSchema, Currency } from '../charges/schemas.ts';
import { PaymentMethodTypes } from '../checkout/schemas.ts';
import { ListQuery } from '../shared/pagination.ts';

export const CreatePaymentLinkBody = Type.Object(
  {
    amount: Type.Optional(
      Type.Union([
        amountSchema({ description: 'A fixed amount; null: the payer types it on the page.', examples: ['1500.00'] }),
        Type.Null(),
      ]),
    ),
    currency: Currency,
    description: Type.String({ minLength: 1, maxLength: 255, description: 'What the payer buys: shown on the page.' }),
    payment_method_types: Type.Optional(PaymentMethodTypes),
    after_completion_url: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Null()], {
        description: 'Where the payer goes once paid, with ?session_id=…; null: Purse shows its receipt.',
      }),
    ),
    active: Type.Optional(Type.Boolean({ description: 'Whether the link takes payments; true when absent.' })),
  },
  { additionalProperties: false, examples: [{ amount: '2500.00', currency: 'KES', description: 'Yoga class, 10 sessions', active: true }] },
);

export const UpdatePaymentLinkBody = Type.Object(
  { active: Type.Boolean({ description: 'false: the link shows "no longer active" and opens no session.' }) },
  { additionalProperties: false },
);

export const PaymentLinkView = Type.Object(
  {
    id: Type.String({ examples: ['plink_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('payment_link'),
    url: Type.String({ description: 'Share it (or its QR code): each visit opens a fresh checkout session.' }),
    amount: Type.Union([Type.String(), Type.Null()]),
    currency: Type.String(),
    description: Type.String(),
    payment_method_types: Type.Array(Type.String()),
    after_completion_url: Type.Union([Type.String(), Type.Null()]),
    active: Type.Boolean(),
    livemode: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'PaymentLink' },
);

export const PaymentLinkListQuery = Type.Object(
  { ...ListQuery, active: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])) },
  { additionalProperties: false },
);
