import { Type } from 'typebox';
import { Currency, CustomerInput, Metadata, Reference } from '../charges/schemas.ts';

export const CreateWalletBody = Type.Object(
  {
    currency: Currency,
    reference: Type.Optional(Reference),
    holder: Type.Optional(CustomerInput),
    metadata: Type.Optional(Metadata),
  },
  {
    additionalProperties: false,
    examples: [{ currency: 'KES', reference: 'customer-42', holder: { name: 'Amina Njeri', phone_number: '+254712345678' } }],
  },
);

export const WalletView = Type.Object(
  {
    id: Type.String({ examples: ['wal_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('wallet'),
    currency: Type.String(),
    balance: Type.String({ examples: ['0.00'] }),
    status: Type.Union([Type.Literal('active'), Type.Literal('inactive')]),
    reference: Type.Union([Type.String(), Type.Null()]),
    holder: Type.Union([
      Type.Object({
        name: Type.Union([Type.String(), Type.Null()]),
        phone_number: Type.Union([Type.String(), Type.Null()]),
        email: Type.Union([Type.String(), Type.Null()]),
      }),
      Type.Null(),
    ]),
    metadata: Type.Record(Type.String(), Type.String()),
    livemode: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Wallet' },
);

export const WalletTransactionView = Type.Object(
  {
    id: Type.String({ examples: ['wtx_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('wallet_transaction'),
    amount: Type.String({ description: 'Signed: + credit, - debit.', examples: ['+1500.00'] }),
    currency: Type.String(),
    balance_after: Type.String(),
    source_type: Type.Union([
      Type.Literal('payment'),
      Type.Literal('topup'),
      Type.Literal('transfer'),
      Type.Literal('refund'),
      Type.Literal('payout'),
    ]),
    source_id: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'WalletTransaction' },
);

export const BalanceView = Type.Object(
  {
    object: Type.Literal('balance'),
    available: Type.Array(Type.Object({ currency: Type.String(), amount: Type.String() }), {
      description: 'What refunds and payouts may use now: succeeded payments less pending and succeeded refunds and payouts.',
    }),
    reserved: Type.Array(Type.Object({ currency: Type.String(), amount: Type.String() }), {
      description: 'Held by pending refunds and payouts; it returns to available if they fail.',
    }),
    livemode: Type.Boolean(),
  },
  { $id: 'Balance', description: "The merchant's funds per currency, in every currency it has ever held funds in." },
);
