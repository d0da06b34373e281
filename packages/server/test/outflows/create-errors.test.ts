// POST /v1/refunds and POST /v1/payouts: the bad-input catalogue (each field mutated alone),
// docs/api.md §3, §7, §14, §15. The rows every create shares (reference, amount, currency,
// description, metadata, callback_url), plus the payment a refund names and the destination a
// payout names. Every refused request stores nothing, moves no money (funds, amount_refunded)
// and leaves its reference free.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { newId } from '../../src/shared/ids.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import {
  assertApiError,
  chargeRows,
  defineNo5xxTest,
  defineRowTests,
  edit,
  errorWithoutRequestId,
  expect400,
  fieldRow,
  REMOVE,
  type Row,
  type RowContext,
} from '../helpers/bad-input.ts';
import {
  assertLedgerHealthy,
  cardMethod,
  createWallet,
  fundedWallet,
  mobileMethod,
  paymentBody,
  post,
  uniqueRef,
} from '../helpers/factories.ts';
import { atFileEnd, usePrivatePostgres } from '../webhooks/support.ts';

/** KES capped at 1000 (the amount rows); no worker: pending objects stay pending. */
const STRICT_ENV = { PURSE_ALLOW_PRIVATE_WEBHOOK_URLS: 'false', PURSE_MAX_AMOUNTS: 'KES=1000', PURSE_WORKER: 'false' };

let app: TestApp;
let m: TestMerchant;
let other: TestMerchant;
const fx: Record<string, string> = {};

async function payment(merchant: TestMerchant, body: Record<string, unknown>): Promise<string> {
  const res = await post(app, merchant, '/v1/payments', paymentBody(body));
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

// A database of its own on PostgreSQL: another file's outflow worker on the run's shared
// database must not settle the pending objects this file reads.
const ready = usePrivatePostgres();

before(async () => {
  await ready();
  app = await buildTestApp(null, { env: STRICT_ENV });
  m = await createTestMerchant(app, 'Outflows merchant');
  other = await createTestMerchant(app, 'Other merchant');
  fx.payment = await payment(m, { amount: '900.00' });
  fx.failedPayment = await payment(m, { payment_method: cardMethod({ number: '4000000000000002' }) });
  fx.pendingPayment = await payment(m, { payment_method: mobileMethod('+254712345005') });
  fx.foreignPayment = await payment(other, { amount: '50.00' });
  fx.wallet = await createWallet(app, m, 'KES');
  fx.ugxWallet = await createWallet(app, m, 'UGX');
  fx.foreignWallet = await fundedWallet(app, other, '5.00');
});

atFileEnd(async () => {
  await assertLedgerHealthy(app);
  await app.close();
  await app.deps.close();
});

/** The shared rows minus those about a means of payment (payouts have a destination instead). */
const sharedRows = chargeRows('payment_method').filter((r) => r.param === null || !/^payment_method/.test(r.param));

describe('POST /v1/refunds', () => {
  const refundBody = (ref: string) => ({ reference: ref, payment_id: fx.payment, amount: '0.01' });
  const ctx = (): RowContext => ({ app, merchant: m, url: '/v1/refunds', valid: refundBody, fx, listsByReference: true });
  const set = (value: (c: RowContext) => unknown) => (ref: string, c: RowContext) => edit(c.valid(ref), 'payment_id', value(c));
  const missingPayment = { status: 400, code: 'resource_missing', param: 'payment_id' };
  const refundRows: Row[] = [
    // A refund has no currency (the payment's) and may leave out the amount (all that is left).
    ...sharedRows.filter((r) => !/^currency/.test(r.param ?? '') && r.name !== 'amount missing' && !r.name.includes('UGX')),
    fieldRow('currency (the payment decides it)', 'currency', 'KES', expect400.unknown('currency')),
    fieldRow('payment_id missing', 'payment_id', REMOVE, expect400.missing('payment_id')),
    fieldRow('payment_id a JSON number', 'payment_id', 7, expect400.invalid('payment_id')),
    fieldRow('payment_id null', 'payment_id', null, expect400.invalid('payment_id')),
    fieldRow('payment_id of 65 characters', 'payment_id', 'p'.repeat(65), expect400.invalid('payment_id')),
    { name: 'payment_id empty', ...missingPayment, request: set(() => '') },
    { name: 'payment_id malformed ("pay_123")', ...missingPayment, request: set(() => 'pay_123') },
    { name: 'payment_id of a top-up (top_…)', ...missingPayment, request: set(() => newId('topup')) },
    { name: 'payment_id well-formed but unknown', ...missingPayment, request: set(() => newId('payment')) },
    { name: "payment_id of another merchant's payment", ...missingPayment, request: set((c) => c.fx.foreignPayment) },
    {
      name: 'payment_id of a failed payment',
      status: 400,
      code: 'payment_not_refundable',
      param: 'payment_id',
      request: set((c) => c.fx.failedPayment),
    },
    {
      name: 'payment_id of a pending payment',
      status: 400,
      code: 'payment_not_refundable',
      param: 'payment_id',
      request: set((c) => c.fx.pendingPayment),
    },
    {
      name: 'amount above what is left (900.01 of 900.00)',
      status: 400,
      code: 'amount_too_large',
      param: 'amount',
      request: (ref, c) => edit(c.valid(ref), 'amount', '900.01'),
    },
    fieldRow('reason unknown', 'reason', 'changed_mind', expect400.invalid('reason')),
    fieldRow('reason in upper case', 'reason', 'DUPLICATE', expect400.invalid('reason')),
    fieldRow('reason a number', 'reason', 1, expect400.invalid('reason')),
    fieldRow('destination (refunds go back by the payment)', 'destination', { type: 'wallet' }, expect400.unknown('destination')),
    fieldRow('read-only field status', 'status', 'succeeded', expect400.unknown('status')),
  ];

  describe('bad input, one field at a time: exact error, nothing stored, reference still free', () => {
    defineRowTests(refundRows, ctx);
  });

  test("unknown, malformed and another merchant's payment answer identically", async () => {
    const answers = [];
    for (const id of [newId('payment'), fx.foreignPayment!, 'pay_123']) {
      const res = await post(app, m, '/v1/refunds', { reference: uniqueRef('re'), payment_id: id });
      assertApiError(res, missingPayment, id);
      answers.push(errorWithoutRequestId(res));
    }
    assert.deepEqual(answers[1], answers[0], "another merchant's payment reads exactly like an unknown one");
    assert.deepEqual(answers[2], answers[0]);
  });

  defineNo5xxTest(refundRows, ctx, 60);
});

describe('POST /v1/payouts', () => {
  const payoutBody = (ref: string) => ({
    reference: ref,
    amount: '0.01',
    currency: 'KES',
    destination: { type: 'wallet', wallet: { wallet_id: fx.wallet } },
  });
  const ctx = (): RowContext => ({ app, merchant: m, url: '/v1/payouts', valid: payoutBody, fx, listsByReference: true });
  const dest = (value: unknown) => (ref: string, c: RowContext) => edit(c.valid(ref), 'destination', value);
  const destWallet = (value: (c: RowContext) => unknown) => (ref: string, c: RowContext) =>
    edit(c.valid(ref), 'destination', { type: 'wallet', wallet: { wallet_id: value(c) } });
  const missingWallet = { status: 400, code: 'resource_missing', param: 'destination.wallet.wallet_id' };
  const payoutRows: Row[] = [
    ...sharedRows,
    fieldRow('destination missing', 'destination', REMOVE, expect400.missing('destination')),
    fieldRow('destination a string', 'destination', 'wallet', expect400.invalid('destination')),
    fieldRow('destination null', 'destination', null, expect400.invalid('destination')),
    { name: 'destination.type missing', ...expect400.missing('destination.type'), request: dest({ wallet: { wallet_id: 'x' } }) },
    { name: 'destination.type card (not a payout destination)', ...expect400.invalid('destination.type'), request: dest({ type: 'card' }) },
    { name: 'destination.type wallet without wallet', ...expect400.missing('destination.wallet'), request: dest({ type: 'wallet' }) },
    {
      name: 'destination.type mobile_money without mobile_money',
      ...expect400.missing('destination.mobile_money'),
      request: dest({ type: 'mobile_money' }),
    },
    {
      name: 'destination with both wallet and mobile_money',
      ...expect400.invalid('destination.mobile_money'),
      request: (ref, c) =>
        edit(c.valid(ref), 'destination', {
          type: 'wallet',
          wallet: { wallet_id: c.fx.wallet },
          mobile_money: { phone_number: '+254712345000' },
        }),
    },
    {
      name: 'destination with an unknown field',
      ...expect400.unknown('destination.bank'),
      request: dest({ type: 'wallet', wallet: { wallet_id: 'w' }, bank: {} }),
    },
    { name: 'destination wallet unknown', ...missingWallet, request: destWallet(() => newId('wallet')) },
    { name: 'destination wallet malformed', ...missingWallet, request: destWallet(() => 'wal_123') },
    { name: "destination another merchant's wallet", ...missingWallet, request: destWallet((c) => c.fx.foreignWallet) },
    {
      name: 'destination a UGX wallet for a KES payout',
      ...expect400.invalid('destination.wallet.wallet_id'),
      request: destWallet((c) => c.fx.ugxWallet),
    },
    {
      name: 'destination phone not E.164',
      ...expect400.invalid('destination.mobile_money.phone_number'),
      request: dest({ type: 'mobile_money', mobile_money: { phone_number: '0712345678' } }),
    },
    {
      name: 'destination phone a number',
      ...expect400.invalid('destination.mobile_money.phone_number'),
      request: dest({ type: 'mobile_money', mobile_money: { phone_number: 254712345678 } }),
    },
    {
      name: 'destination phone missing',
      ...expect400.missing('destination.mobile_money.phone_number'),
      request: dest({ type: 'mobile_money', mobile_money: {} }),
    },
    fieldRow('payment_id (refunds only)', 'payment_id', fx.payment ?? 'pay_x', expect400.unknown('payment_id')),
    fieldRow('reason (refunds only)', 'reason', 'duplicate', expect400.unknown('reason')),
  ];

  describe('bad input, one field at a time: exact error, nothing stored, reference still free', () => {
    defineRowTests(payoutRows, ctx);
  });

  defineNo5xxTest(payoutRows, ctx, 80);
});
