// POST /v1/topups: the bad-input catalogue (each field mutated alone),
// docs/api.md §3, §5, §7. The rows shared with payments, on `source`, plus the wallet_id rows.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
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
  storedCounts,
} from '../helpers/bad-input.ts';
import {
  assertLedgerHealthy,
  CARD_OK,
  cardMethod,
  createWallet,
  fundedWallet,
  get,
  mobileMethod,
  paymentBody,
  post,
  uniqueRef,
  walletMethod,
} from '../helpers/factories.ts';

/** Private callback URLs refused, KES capped at 1000; no worker: card top-ups are final at once. */
const STRICT_ENV = { PURSE_ALLOW_PRIVATE_WEBHOOK_URLS: 'false', PURSE_MAX_AMOUNTS: 'KES=1000', PURSE_WORKER: 'false' };

let app: TestApp;
let m: TestMerchant;
let other: TestMerchant;
const fx: Record<string, string> = {};

before(async () => {
  app = await buildTestApp(null, { env: STRICT_ENV });
  m = await createTestMerchant(app, 'Top-ups merchant');
  other = await createTestMerchant(app, 'Other merchant');
  fx.kesWallet = await createWallet(app, m, 'KES');
  fx.ugxWallet = await createWallet(app, m, 'UGX');
  fx.foreignWallet = await createWallet(app, other, 'KES');
});

after(async () => {
  await app.close();
  await app.deps.close();
});

const topupBody = (overrides: Record<string, unknown> = {}) => ({
  reference: uniqueRef('top'),
  amount: '100.00',
  currency: 'KES',
  wallet_id: fx.kesWallet,
  source: cardMethod(),
  ...overrides,
});

const ctx = (): RowContext => ({
  app,
  merchant: m,
  url: '/v1/topups',
  valid: (ref) => topupBody({ reference: ref }),
  fx,
  listsByReference: true,
});

const missingWallet = { status: 400, code: 'resource_missing', param: 'wallet_id' };
const walletId = (value: unknown) => (ref: string, c: RowContext) => edit(c.valid(ref), 'wallet_id', value);

const topupOnlyRows: Row[] = [
  // A wallet cannot fund a top-up (docs/api.md §5): with its object or alone, the answer is
  // parameter_invalid on source.type (the code the contract gives, not parameter_unknown).
  fieldRow(
    'a wallet source with its wallet object',
    'source',
    walletMethod('wal_01jd6x8v1ffq8v2k3m4n5p6q7r'),
    expect400.invalid('source.type'),
  ),
  fieldRow('a wallet source, type alone', 'source', { type: 'wallet' }, expect400.invalid('source.type')),
  fieldRow('payment_method beside source', 'payment_method', cardMethod(), expect400.unknown('payment_method')),
  fieldRow('customer (payments only)', 'customer', { name: 'A' }, expect400.unknown('customer')),
  fieldRow('wallet_id missing', 'wallet_id', REMOVE, expect400.missing('wallet_id')),
  { name: 'wallet_id empty', ...missingWallet, request: walletId('') },
  { name: 'wallet_id malformed ("wal_123")', ...missingWallet, request: walletId('wal_123') },
  { name: 'wallet_id of a payment (pay_…)', ...missingWallet, request: walletId(newId('payment')) },
  { name: 'wallet_id in upper case', ...missingWallet, request: (ref, c) => walletId(c.fx.kesWallet!.toUpperCase())(ref, c) },
  { name: 'wallet_id well-formed but unknown', ...missingWallet, request: walletId(newId('wallet')) },
  { name: "wallet_id of another merchant's wallet", ...missingWallet, request: (ref, c) => walletId(c.fx.foreignWallet)(ref, c) },
  { name: 'wallet_id of 65 characters', ...expect400.invalid('wallet_id'), request: walletId('w'.repeat(65)) },
  { name: 'wallet_id a JSON number', ...expect400.invalid('wallet_id'), request: walletId(12) },
  { name: 'wallet_id null', ...expect400.invalid('wallet_id'), request: walletId(null) },
  { name: 'KES top-up into a UGX wallet', ...expect400.invalid('wallet_id'), request: (ref, c) => walletId(c.fx.ugxWallet)(ref, c) },
  {
    name: 'UGX top-up into a KES wallet',
    ...expect400.invalid('wallet_id'),
    request: (ref, c) => ({ ...c.valid(ref), currency: 'UGX', amount: '100' }),
  },
];
const rows = [...chargeRows('source'), ...topupOnlyRows];

describe('bad input, one field at a time: exact error, nothing stored, reference still free', () => {
  defineRowTests(rows, ctx);
});

describe('wallets that cannot be topped up', () => {
  test("unknown, malformed and another merchant's wallet_id: identical resource_missing bodies apart from request_id", async () => {
    const answers = [];
    for (const id of [newId('wallet'), fx.foreignWallet!, 'wal_123']) {
      const res = await post(app, m, '/v1/topups', topupBody({ wallet_id: id }));
      assertApiError(res, missingWallet, id);
      answers.push(errorWithoutRequestId(res));
    }
    assert.deepEqual(answers[1], answers[0], "another merchant's wallet reads exactly like an unknown one");
    assert.deepEqual(answers[2], answers[0]);
    // And the other merchant's wallet is untouched.
    assert.equal((await get(app, other, `/v1/wallets/${fx.foreignWallet}`)).json().balance, '0.00');
  });

  for (const [means, source] of [
    ['card', cardMethod()],
    ['mobile money', mobileMethod('+254712345000')],
  ] as const) {
    test(`a frozen wallet (${means}) → 201 failed wallet_inactive, balance untouched; the replay is the failed object`, async () => {
      const wallet = await fundedWallet(app, m, '40.00');
      assert.equal((await post(app, m, `/v1/wallets/${wallet}/freeze`, {})).statusCode, 200);
      const body = topupBody({ wallet_id: wallet, source });
      const res = await post(app, m, '/v1/topups', body);
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().status, 'failed');
      assert.equal(res.json().failure.code, 'wallet_inactive');
      assert.equal(res.json().wallet_id, wallet);
      assert.equal((await get(app, m, `/v1/wallets/${wallet}`)).json().balance, '40.00');
      const replay = await post(app, m, '/v1/topups', body);
      assert.equal(replay.statusCode, 200);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.deepEqual(replay.json(), res.json());
      assert.equal((await get(app, m, `/v1/wallets/${wallet}/transactions`)).json().data.length, 1, 'only the funding top-up');
    });
  }

  test('a declined card top-up → 201 failed card_declined, the wallet is not credited', async () => {
    const wallet = await createWallet(app, m);
    const res = await post(app, m, '/v1/topups', topupBody({ wallet_id: wallet, source: cardMethod({ number: '4000000000000002' }) }));
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().status, 'failed');
    assert.equal(res.json().failure.code, 'card_declined');
    assert.equal((await get(app, m, `/v1/wallets/${wallet}`)).json().balance, '0.00');
  });
});

describe('replays and conflicts (docs/api.md §7)', () => {
  test('same reference, same request → 200 Idempotent-Replayed, same id; the wallet is credited once', async () => {
    const wallet = await createWallet(app, m);
    const body = topupBody({ wallet_id: wallet, amount: '25.50' });
    const first = await post(app, m, '/v1/topups', body);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers.location, `/v1/topups/${first.json().id}`);
    assert.equal(first.json().object, 'topup');
    assert.equal(first.json().status, 'succeeded');
    const before = await storedCounts(app, m.merchantId);
    const second = await post(app, m, '/v1/topups', { ...body, source: cardMethod({ cvc: '999' }) });
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.deepEqual(second.json(), first.json());
    assert.deepEqual(await storedCounts(app, m.merchantId), before);
    assert.equal((await get(app, m, `/v1/wallets/${wallet}`)).json().balance, '25.50');
  });

  const conflicts: [string, (w: string) => Record<string, unknown>, string][] = [
    ['amount', () => ({ amount: '100.01' }), 'amount'],
    ['wallet', (w) => ({ wallet_id: w }), 'wallet_id'],
    ['card number', () => ({ source: cardMethod({ number: '5555555555554444' }) }), 'source'],
  ];
  for (const [what, change, field] of conflicts) {
    test(`same reference, different ${what} → 409 reference_conflict naming "${field}", existing_id`, async () => {
      const body = topupBody();
      const first = await post(app, m, '/v1/topups', body);
      assert.equal(first.statusCode, 201, first.body);
      const otherWallet = await createWallet(app, m);
      const before = await storedCounts(app, m.merchantId);
      const res = await post(app, m, '/v1/topups', { ...body, ...change(otherWallet) });
      const error = assertApiError(res, { status: 409, code: 'reference_conflict', param: 'reference' });
      assert.equal(error.existing_id, first.json().id);
      assert.ok(error.message.includes(field), error.message);
      assert.deepEqual(await storedCounts(app, m.merchantId), before);
      assert.equal((await get(app, m, `/v1/wallets/${otherWallet}`)).json().balance, '0.00');
    });
  }

  test('a top-up and a payment may share a reference', async () => {
    const reference = uniqueRef('shared');
    const topup = await post(app, m, '/v1/topups', topupBody({ reference }));
    assert.equal(topup.statusCode, 201, topup.body);
    const payment = await post(app, m, '/v1/payments', paymentBody({ reference }));
    assert.equal(payment.statusCode, 201, payment.body);
    assert.equal((await get(app, m, `/v1/topups?reference=${reference}`)).json().data.length, 1);
    assert.equal((await get(app, m, `/v1/payments?reference=${reference}`)).json().data.length, 1);
  });

  test('two merchants may use the same top-up reference', async () => {
    const reference = uniqueRef('both');
    const theirWallet = await createWallet(app, other);
    assert.equal((await post(app, m, '/v1/topups', topupBody({ reference }))).statusCode, 201);
    const theirs = await post(app, other, '/v1/topups', {
      reference,
      amount: '1.00',
      currency: 'KES',
      wallet_id: theirWallet,
      source: { type: 'card', card: CARD_OK },
    });
    assert.equal(theirs.statusCode, 201, theirs.body);
  });
});

describe('no 5xx', () => {
  defineNo5xxTest(rows, ctx, 150);

  test('the ledger is healthy after everything above', async () => {
    await assertLedgerHealthy(app);
  });
});
