// POST /v1/payments: the bad-input catalogue (each field mutated alone),
// docs/api.md §1, §3, §4, §7. Every refused request stores nothing and leaves its reference free.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../../src/shared/ids.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import {
  assertApiError,
  bodyOfSize,
  chargeRows,
  defineNo5xxTest,
  defineRowTests,
  edit,
  errorWithoutRequestId,
  expect400,
  fieldRow,
  KIB_16,
  type Row,
  type RowContext,
  raw,
  send,
  storedCounts,
} from '../helpers/bad-input.ts';
import {
  assertLedgerHealthy,
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

/**
 * Private callback URLs refused (the test default allows them) and KES capped at 1000 major
 * units. No settlement worker: every payment here is final at once (cards, wallets) or refused.
 */
const STRICT_ENV = { PURSE_ALLOW_PRIVATE_WEBHOOK_URLS: 'false', PURSE_MAX_AMOUNTS: 'KES=1000', PURSE_WORKER: 'false' };

let app: TestApp;
let m: TestMerchant;
let other: TestMerchant;
const fx: Record<string, string> = {};

before(async () => {
  app = await buildTestApp(null, { env: STRICT_ENV });
  m = await createTestMerchant(app, 'Payments merchant');
  other = await createTestMerchant(app, 'Other merchant');
  fx.ugxWallet = await createWallet(app, m, 'UGX');
  fx.foreignWallet = await fundedWallet(app, other, '500.00');
});

after(async () => {
  await app.close();
  await app.deps.close();
});

const ctx = (): RowContext => ({
  app,
  merchant: m,
  url: '/v1/payments',
  valid: (ref) => paymentBody({ reference: ref }),
  fx,
  listsByReference: true,
});

const walletParam = 'payment_method.wallet.wallet_id';
const withWallet = (walletId: unknown) => (ref: string, c: RowContext) =>
  edit(c.valid(ref), 'payment_method', { type: 'wallet', wallet: { wallet_id: walletId } });
const missingWallet = { status: 400, code: 'resource_missing', param: walletParam };

const paymentOnlyRows: Row[] = [
  fieldRow('customer.email not an email', 'customer', { email: 'not-an-email' }, expect400.invalid('customer.email')),
  fieldRow('customer.phone_number not E.164', 'customer', { phone_number: '0712345678' }, expect400.invalid('customer.phone_number')),
  fieldRow('customer with an unknown field', 'customer', { name: 'A', id_number: '1' }, expect400.unknown('customer.id_number')),
  fieldRow('customer a string', 'customer', 'Alice', expect400.invalid('customer')),
  { name: 'wallet id malformed ("wal_123")', ...missingWallet, request: withWallet('wal_123') },
  { name: 'wallet id empty', ...missingWallet, request: withWallet('') },
  { name: 'wallet id of a payment (pay_…)', ...missingWallet, request: withWallet(newId('payment')) },
  { name: 'wallet id well-formed but unknown', ...missingWallet, request: withWallet(newId('wallet')) },
  { name: "wallet id of another merchant's wallet", ...missingWallet, request: (ref, c) => withWallet(c.fx.foreignWallet)(ref, c) },
  {
    name: 'wallet id of a wallet in another currency (UGX wallet, KES payment)',
    ...expect400.invalid(walletParam),
    request: (ref, c) => withWallet(c.fx.ugxWallet)(ref, c),
  },
  { name: 'wallet id of 65 characters', ...expect400.invalid(walletParam), request: withWallet('w'.repeat(65)) },
  { name: 'wallet id a JSON number', ...expect400.invalid(walletParam), request: withWallet(7) },
  {
    name: 'wallet id missing',
    ...expect400.missing(walletParam),
    request: (ref, c) => edit(c.valid(ref), 'payment_method', { type: 'wallet', wallet: {} }),
  },
  {
    name: 'type wallet without its object',
    ...expect400.missing('payment_method.wallet'),
    request: (ref, c) => edit(c.valid(ref), 'payment_method', { type: 'wallet' }),
  },
  {
    name: 'type wallet with a card object',
    ...expect400.missing('payment_method.wallet'),
    request: (ref, c) => edit(c.valid(ref), 'payment_method', { type: 'wallet', card: cardMethod().card }),
  },
];

const rows = [...chargeRows('payment_method'), ...paymentOnlyRows];

describe('bad input, one field at a time: exact error, nothing stored, reference still free', () => {
  defineRowTests(rows, ctx);
});

describe('the rows are refused for the reason they name: the nearest valid values are accepted', () => {
  const accepted: [string, (ref: string) => unknown][] = [
    ['reference of 128 characters', () => paymentBody({ reference: uniqueRef('r128').padEnd(128, 'x') })],
    ['reference with inner spaces and non-ASCII letters', (ref) => paymentBody({ reference: `Order ${ref} — Zürich ✓` })],
    ['amount "1000" KES (the configured maximum)', (ref) => paymentBody({ reference: ref, amount: '1000' })],
    ['amount "0.01" KES', (ref) => paymentBody({ reference: ref, amount: '0.01' })],
    ['amount "1500" UGX', (ref) => paymentBody({ reference: ref, amount: '1500', currency: 'UGX' })],
    ['amount "100000000" UGX (the default maximum)', (ref) => paymentBody({ reference: ref, amount: '100000000', currency: 'UGX' })],
    [
      'metadata of 50 keys',
      (ref) => paymentBody({ reference: ref, metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'])) }),
    ],
    [
      'metadata key of 40 and value of 500 characters',
      (ref) => paymentBody({ reference: ref, metadata: { ['k'.repeat(40)]: 'v'.repeat(500) } }),
    ],
    [
      'metadata keys "constructor" and "prototype"',
      (ref) => paymentBody({ reference: ref, metadata: { constructor: 'a', prototype: 'b' } }),
    ],
    ['callback_url a public https URL', (ref) => paymentBody({ reference: ref, callback_url: 'https://shop.example/hooks?order=1' })],
    ['description of 255 characters', (ref) => paymentBody({ reference: ref, description: 'd'.repeat(255) })],
    [
      'card expiring this month',
      (ref) =>
        paymentBody({
          reference: ref,
          payment_method: cardMethod({ exp_year: new Date().getUTCFullYear(), exp_month: new Date().getUTCMonth() + 1 }),
        }),
    ],
    ['card CVC of 4 digits', (ref) => paymentBody({ reference: ref, payment_method: cardMethod({ cvc: '1234' }) })],
    ['body of exactly 16 KiB', (ref) => raw(bodyOfSize(paymentBody({ reference: ref }), KIB_16))],
    [
      'content-type application/json; charset=utf-8',
      (ref) => raw(JSON.stringify(paymentBody({ reference: ref })), 'application/json; charset=utf-8'),
    ],
  ];
  for (const [name, body] of accepted) {
    test(`${name} → 201`, async () => {
      const res = await send(app, m, '/v1/payments', body(uniqueRef('ok')));
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().object, 'payment');
    });
  }

  test('amounts come back in canonical form ("10.5" KES → "10.50", "7" KES → "7.00")', async () => {
    for (const [sent, back] of [
      ['10.5', '10.50'],
      ['7', '7.00'],
    ]) {
      const res = await post(app, m, '/v1/payments', paymentBody({ amount: sent }));
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().amount, back);
    }
  });

  test('with private callback URLs allowed by the operator, http://127.0.0.1/x is accepted (the rows test the switch)', async (t) => {
    const lenient = await buildTestApp(t, { env: { PURSE_WORKER: 'false' } }); // TEST_ENV: PURSE_ALLOW_PRIVATE_WEBHOOK_URLS=true
    const merchant = await createTestMerchant(lenient);
    const res = await post(lenient, merchant, '/v1/payments', paymentBody({ callback_url: 'http://127.0.0.1/x' }));
    assert.equal(res.statusCode, 201, res.body);
    for (const url of ['file:///etc/passwd', 'https://u:p@example.com/']) {
      assertApiError(
        await post(lenient, merchant, '/v1/payments', paymentBody({ callback_url: url })),
        expect400.invalid('callback_url'),
        url,
      );
    }
  });

  test('callback_url with a public IPv4 address is accepted', async () => {
    const res = await post(app, m, '/v1/payments', paymentBody({ callback_url: 'http://93.184.215.14/hooks' }));
    assert.equal(res.statusCode, 201, res.body);
  });

  test('a fully qualified "localhost." is refused like "localhost"', async () => {
    assertApiError(
      await post(app, m, '/v1/payments', paymentBody({ callback_url: 'http://localhost./x' })),
      expect400.invalid('callback_url'),
    );
  });
});

describe('wallet payments: refused wallets and business outcomes', () => {
  test("unknown, malformed and another merchant's wallet ids: identical resource_missing bodies apart from request_id", async () => {
    const answers = [];
    for (const walletId of [newId('wallet'), fx.foreignWallet!, 'wal_123']) {
      const res = await post(app, m, '/v1/payments', paymentBody({ payment_method: walletMethod(walletId) }));
      assertApiError(res, missingWallet, walletId);
      answers.push(errorWithoutRequestId(res));
    }
    assert.deepEqual(answers[1], answers[0], "another merchant's wallet reads exactly like an unknown one");
    assert.deepEqual(answers[2], answers[0]);
    assert.ok(!JSON.stringify(answers).includes(fx.foreignWallet!), 'the error does not echo the foreign id');
  });

  test('a frozen wallet → 201 failed wallet_inactive, balance untouched; the replay is the failed object', async () => {
    const walletId = await fundedWallet(app, m, '300.00');
    assert.equal((await post(app, m, `/v1/wallets/${walletId}/freeze`, {})).statusCode, 200);
    const body = paymentBody({ amount: '100.00', payment_method: walletMethod(walletId) });
    const res = await post(app, m, '/v1/payments', body);
    assert.equal(res.statusCode, 201, res.body);
    const payment = res.json();
    assert.equal(payment.status, 'failed');
    assert.equal(payment.failure.code, 'wallet_inactive');
    assert.equal(typeof payment.failure.message, 'string');
    const wallet = (await get(app, m, `/v1/wallets/${walletId}`)).json();
    assert.equal(wallet.balance, '300.00');
    assert.equal((await get(app, m, `/v1/wallets/${walletId}/transactions`)).json().data.length, 1, 'only the funding top-up');

    const replay = await post(app, m, '/v1/payments', body);
    assert.equal(replay.statusCode, 200, replay.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.json(), payment);
    // Unfreezing does not revive a used reference: the replay stays the failed object.
    assert.equal((await post(app, m, `/v1/wallets/${walletId}/unfreeze`, {})).statusCode, 200);
    const again = await post(app, m, '/v1/payments', body);
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().status, 'failed');
    assert.equal((await get(app, m, `/v1/wallets/${walletId}`)).json().balance, '300.00');
  });

  test('insufficient funds → 201 failed insufficient_funds, balance untouched, no wallet transaction', async () => {
    const walletId = await fundedWallet(app, m, '50.00');
    const res = await post(app, m, '/v1/payments', paymentBody({ amount: '50.01', payment_method: walletMethod(walletId) }));
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().status, 'failed');
    assert.equal(res.json().failure.code, 'insufficient_funds');
    assert.equal((await get(app, m, `/v1/wallets/${walletId}`)).json().balance, '50.00');
    assert.equal((await get(app, m, `/v1/wallets/${walletId}/transactions`)).json().data.length, 1);
    // The exact balance is still payable.
    const exact = await post(app, m, '/v1/payments', paymentBody({ amount: '50.00', payment_method: walletMethod(walletId) }));
    assert.equal(exact.json().status, 'succeeded', exact.body);
    assert.equal((await get(app, m, `/v1/wallets/${walletId}`)).json().balance, '0.00');
  });
});

describe('replays and conflicts (docs/api.md §7)', () => {
  test('same reference, same request → 200 Idempotent-Replayed with the same object; one row', async () => {
    const body = paymentBody();
    const first = await post(app, m, '/v1/payments', body);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers.location, `/v1/payments/${first.json().id}`);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const before = await storedCounts(app, m.merchantId);
    const second = await post(app, m, '/v1/payments', body);
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.deepEqual(second.json(), first.json());
    assert.deepEqual(await storedCounts(app, m.merchantId), before, 'a replay stores nothing');
    const list = (await get(app, m, `/v1/payments?reference=${encodeURIComponent(body.reference)}`)).json();
    assert.deepEqual(
      list.data.map((p: { id: string }) => p.id),
      [first.json().id],
    );
  });

  test('the same card with a different CVC is the same request (the CVC is left out)', async () => {
    const body = paymentBody({ payment_method: cardMethod({ cvc: '123' }) });
    const first = await post(app, m, '/v1/payments', body);
    assert.equal(first.statusCode, 201, first.body);
    const second = await post(app, m, '/v1/payments', { ...body, payment_method: cardMethod({ cvc: '9876' }) });
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(second.json().id, first.json().id);
  });

  test('the canonical amount is compared: "100" and "100.00" KES are the same request', async () => {
    const body = paymentBody({ amount: '100' });
    const first = await post(app, m, '/v1/payments', body);
    const second = await post(app, m, '/v1/payments', { ...body, amount: '100.00' });
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(second.json().id, first.json().id);
  });

  const conflicts: [string, Record<string, unknown>, string][] = [
    ['amount', { amount: '100.01' }, 'amount'],
    ['currency', { currency: 'UGX', amount: '100' }, 'currency'],
    ['card number', { payment_method: cardMethod({ number: '5555555555554444' }) }, 'payment_method'],
    ['means of payment', { payment_method: mobileMethod('+254712345000') }, 'payment_method'],
    ['metadata', { metadata: { order_id: '2' } }, 'metadata'],
    ['description', { description: 'other' }, 'description'],
  ];
  for (const [what, change, field] of conflicts) {
    test(`same reference, different ${what} → 409 reference_conflict naming "${field}", existing_id; nothing stored`, async () => {
      const body = paymentBody({ metadata: { order_id: '1' } });
      const first = await post(app, m, '/v1/payments', body);
      assert.equal(first.statusCode, 201, first.body);
      const before = await storedCounts(app, m.merchantId);
      const res = await post(app, m, '/v1/payments', { ...body, ...change });
      const error = assertApiError(res, { status: 409, code: 'reference_conflict', param: 'reference' });
      assert.equal(error.existing_id, first.json().id);
      assert.ok(error.message.includes(field), error.message);
      assert.deepEqual(await storedCounts(app, m.merchantId), before);
      assert.equal((await get(app, m, `/v1/payments/${first.json().id}`)).json().amount, first.json().amount);
    });
  }

  test('a payment and a top-up may share a reference', async () => {
    const reference = uniqueRef('shared');
    const payment = await post(app, m, '/v1/payments', paymentBody({ reference }));
    assert.equal(payment.statusCode, 201, payment.body);
    const walletId = await createWallet(app, m);
    const topup = await post(app, m, '/v1/topups', {
      reference,
      amount: '100.00',
      currency: 'KES',
      wallet_id: walletId,
      source: cardMethod(),
    });
    assert.equal(topup.statusCode, 201, topup.body);
    assert.notEqual(topup.json().id, payment.json().id);
  });

  test('two merchants may use the same reference, and each sees only its own', async () => {
    const reference = uniqueRef('both');
    const mine = await post(app, m, '/v1/payments', paymentBody({ reference }));
    const theirs = await post(app, other, '/v1/payments', paymentBody({ reference, amount: '5.00' }));
    assert.equal(mine.statusCode, 201, mine.body);
    assert.equal(theirs.statusCode, 201, theirs.body);
    assert.notEqual(mine.json().id, theirs.json().id);
    const listed = (await get(app, m, `/v1/payments?reference=${reference}`)).json().data;
    assert.deepEqual(
      listed.map((p: { id: string }) => p.id),
      [mine.json().id],
    );
  });

  test('a failed business outcome uses the reference up: the replay is the failed object', async () => {
    const body = paymentBody({ payment_method: cardMethod({ number: '4000000000000002' }) });
    const first = await post(app, m, '/v1/payments', body);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.json().status, 'failed');
    assert.equal(first.json().failure.code, 'card_declined');
    const replay = await post(app, m, '/v1/payments', body);
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.json(), first.json());
    const retry = await post(app, m, '/v1/payments', { ...body, payment_method: cardMethod() });
    assertApiError(retry, { status: 409, code: 'reference_conflict', param: 'reference' });
  });

  test('a reference differing only in case is another reference', async () => {
    const reference = uniqueRef('Case');
    assert.equal((await post(app, m, '/v1/payments', paymentBody({ reference }))).statusCode, 201);
    assert.equal((await post(app, m, '/v1/payments', paymentBody({ reference: reference.toLowerCase() }))).statusCode, 201);
  });
});

describe('no 5xx', () => {
  defineNo5xxTest(rows, ctx, 150);

  test('the ledger is healthy after everything above', async () => {
    await assertLedgerHealthy(app);
  });
});
