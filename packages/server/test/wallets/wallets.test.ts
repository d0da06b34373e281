// Wallets and balance (docs/api.md §6, §7, §9; docs/money-safety.md rules 5–7): create, retrieve, list,
// freeze/unfreeze, transactions and balance, their happy paths and their refusals.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../../src/shared/ids.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import {
  assertApiError,
  bodyOfSize,
  defineNo5xxTest,
  defineRowTests,
  errorWithoutRequestId,
  expect400,
  fieldRow,
  KIB_16,
  REMOVE,
  type Row,
  type RowContext,
  raw,
  storedCounts,
} from '../helpers/bad-input.ts';
import {
  assertLedgerHealthy,
  cardMethod,
  createWallet,
  fundedWallet,
  get,
  paymentBody,
  post,
  uniqueRef,
  walletMethod,
} from '../helpers/factories.ts';

let app: TestApp;
let m: TestMerchant;
let other: TestMerchant;

before(async () => {
  app = await buildTestApp(null, { env: { PURSE_WORKER: 'false' } });
  m = await createTestMerchant(app, 'Wallets merchant');
  other = await createTestMerchant(app, 'Other merchant');
});

after(async () => {
  await app.close();
  await app.deps.close();
});

const WALLET_KEYS = [
  'balance',
  'created_at',
  'currency',
  'holder',
  'id',
  'livemode',
  'metadata',
  'object',
  'reference',
  'status',
  'updated_at',
];
const TRANSACTION_KEYS = ['amount', 'balance_after', 'created_at', 'currency', 'id', 'object', 'source_id', 'source_type'];
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const notFound = { status: 404, code: 'resource_not_found', param: null };

const freeze = (merchant: TestMerchant, id: string, action: 'freeze' | 'unfreeze' = 'freeze') =>
  app.inject({ method: 'POST', url: `/v1/wallets/${id}/${action}`, headers: merchant.auth });
const ids = (list: { data: { id: string }[] }) => list.data.map((o) => o.id);

describe('create', () => {
  test('a minimal wallet → 201 + Location: balance 0.00, active, every key present', async () => {
    const res = await post(app, m, '/v1/wallets', { currency: 'KES' });
    assert.equal(res.statusCode, 201, res.body);
    const wallet = res.json();
    assert.equal(res.headers.location, `/v1/wallets/${wallet.id}`);
    assert.deepEqual(Object.keys(wallet).sort(), WALLET_KEYS);
    assert.match(wallet.id, /^wal_[0-7][0-9a-hjkmnp-tv-z]{25}$/);
    assert.equal(wallet.object, 'wallet');
    assert.equal(wallet.currency, 'KES');
    assert.equal(wallet.balance, '0.00');
    assert.equal(wallet.status, 'active');
    assert.equal(wallet.reference, null);
    assert.equal(wallet.holder, null);
    assert.deepEqual(wallet.metadata, {});
    assert.equal(wallet.livemode, false);
    assert.match(wallet.created_at, ISO_MS);
    assert.match(wallet.updated_at, ISO_MS);
  });

  test('a UGX wallet shows its balance without decimals ("0")', async () => {
    const res = await post(app, m, '/v1/wallets', { currency: 'UGX' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().balance, '0');
  });

  test('reference, holder and metadata come back as sent; absent holder fields are null', async () => {
    const body = {
      currency: 'KES',
      reference: uniqueRef('wal'),
      holder: { name: 'Amina', phone_number: '+254712345678' },
      metadata: { customer_id: 'c-1' },
    };
    const res = await post(app, m, '/v1/wallets', body);
    assert.equal(res.statusCode, 201, res.body);
    const wallet = res.json();
    assert.equal(wallet.reference, body.reference);
    assert.deepEqual(wallet.holder, { name: 'Amina', phone_number: '+254712345678', email: null });
    assert.deepEqual(wallet.metadata, { customer_id: 'c-1' });
  });

  test('without a reference every create is a new wallet', async () => {
    const a = await post(app, m, '/v1/wallets', { currency: 'KES' });
    const b = await post(app, m, '/v1/wallets', { currency: 'KES' });
    assert.equal(a.statusCode, 201);
    assert.equal(b.statusCode, 201);
    assert.notEqual(a.json().id, b.json().id);
  });

  test('same reference, same request → 200 Idempotent-Replayed, same wallet; different request → 409 naming the field', async () => {
    const body = { currency: 'KES', reference: uniqueRef('wal'), holder: { email: 'a@example.com' }, metadata: { k: 'v' } };
    const first = await post(app, m, '/v1/wallets', body);
    assert.equal(first.statusCode, 201, first.body);
    const before = await storedCounts(app, m.merchantId);
    const replay = await post(app, m, '/v1/wallets', body);
    assert.equal(replay.statusCode, 200, replay.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.json(), first.json());
    for (const [change, field] of [
      [{ currency: 'UGX' }, 'currency'],
      [{ metadata: { k: 'w' } }, 'metadata'],
      [{ holder: { email: 'b@example.com' } }, 'holder'],
    ] as const) {
      const res = await post(app, m, '/v1/wallets', { ...body, ...change });
      const error = assertApiError(res, { status: 409, code: 'reference_conflict', param: 'reference' }, field);
      assert.equal(error.existing_id, first.json().id);
      assert.ok(error.message.includes(field), error.message);
    }
    assert.deepEqual(await storedCounts(app, m.merchantId), before, 'replays and conflicts store nothing');
  });

  test('two merchants may use the same wallet reference', async () => {
    const reference = uniqueRef('wal');
    assert.equal((await post(app, m, '/v1/wallets', { currency: 'KES', reference })).statusCode, 201);
    assert.equal((await post(app, other, '/v1/wallets', { currency: 'KES', reference })).statusCode, 201);
  });
});

const ctx = (): RowContext => ({
  app,
  merchant: m,
  url: '/v1/wallets',
  valid: (ref) => ({ currency: 'KES', reference: ref }),
  fx: {},
  listsByReference: false,
});
const { invalid, missing, unknown } = expect400;

const createRows: Row[] = [
  fieldRow('currency missing', 'currency', REMOVE, missing('currency')),
  fieldRow('currency lower case "kes"', 'currency', 'kes', invalid('currency')),
  fieldRow('currency of 4 letters', 'currency', 'KESS', invalid('currency')),
  fieldRow('currency a number', 'currency', 404, invalid('currency')),
  fieldRow('currency null', 'currency', null, invalid('currency')),
  fieldRow('currency unknown "XYZ"', 'currency', 'XYZ', { status: 400, code: 'currency_not_supported', param: 'currency' }),
  fieldRow('reference empty', 'reference', '', invalid('reference'), { refStaysFree: false }),
  fieldRow('reference of 129 characters', 'reference', 'r'.repeat(129), invalid('reference'), { refStaysFree: false }),
  fieldRow('reference a number', 'reference', 7, invalid('reference'), { refStaysFree: false }),
  fieldRow('reference null', 'reference', null, invalid('reference'), { refStaysFree: false }),
  ...['\u0000', '\u0007', '\u001b'].map(
    (char): Row => ({
      name: `reference with U+${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
      ...invalid('reference'),
      request: (ref) => ({ currency: 'KES', reference: `${ref}${char}` }),
    }),
  ),
  { name: 'reference with a leading space', ...invalid('reference'), request: (ref) => ({ currency: 'KES', reference: ` ${ref}` }) },
  { name: 'reference with a trailing space', ...invalid('reference'), request: (ref) => ({ currency: 'KES', reference: `${ref} ` }) },
  fieldRow('holder.email not an email', 'holder', { email: 'nope' }, invalid('holder.email')),
  fieldRow('holder.phone_number not E.164', 'holder', { phone_number: '0712345678' }, invalid('holder.phone_number')),
  fieldRow('holder.phone_number with letters', 'holder', { phone_number: '+2547abc45678' }, invalid('holder.phone_number')),
  fieldRow('holder.name of 201 characters', 'holder', { name: 'n'.repeat(201) }, invalid('holder.name')),
  fieldRow('holder with an unknown field', 'holder', { national_id: '1' }, unknown('holder.national_id')),
  fieldRow('holder a string', 'holder', 'Amina', invalid('holder')),
  fieldRow(
    'metadata with 51 keys',
    'metadata',
    Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])),
    invalid('metadata'),
  ),
  fieldRow('metadata key of 41 characters', 'metadata', { ['k'.repeat(41)]: 'v' }, invalid(`metadata.${'k'.repeat(41)}`)),
  fieldRow('metadata value of 501 characters', 'metadata', { k: 'v'.repeat(501) }, invalid('metadata.k')),
  fieldRow('metadata nested object', 'metadata', { k: { a: 'b' } }, invalid('metadata.k')),
  fieldRow('metadata number value', 'metadata', { k: 1 }, invalid('metadata.k')),
  ...['id', 'object', 'balance', 'status', 'merchant_id', 'livemode', 'created_at'].map((field) =>
    fieldRow(`read-only field ${field}`, field, 'x', unknown(field)),
  ),
  fieldRow('unknown field amount', 'amount', '100.00', unknown('amount')),
  { name: 'body not JSON', status: 400, code: 'invalid_json', param: null, request: () => raw('{"currency":') },
  { name: 'body empty with content-type JSON', status: 400, code: 'invalid_json', param: null, request: () => raw('') },
  { name: 'body []', status: 400, code: 'invalid_json', param: null, request: () => raw('[]') },
  { name: 'body null', status: 400, code: 'invalid_json', param: null, request: () => raw('null') },
  { name: 'body a JSON string', status: 400, code: 'invalid_json', param: null, request: () => raw('"KES"') },
  {
    name: 'body of 16 KiB + 1 byte',
    status: 413,
    code: 'payload_too_large',
    param: null,
    request: (ref) => raw(bodyOfSize({ currency: 'KES', reference: ref }, KIB_16 + 1)),
  },
  {
    name: 'metadata nested 100 levels',
    ...invalid(['metadata', ...Array<string>(16).fill('a')].join('.')),
    request: (ref) => {
      let value: unknown = 'x';
      for (let i = 0; i < 100; i++) value = { a: value };
      return { currency: 'KES', reference: ref, metadata: value };
    },
  },
  {
    name: 'a "__proto__" key',
    ...invalid('__proto__'),
    request: (ref) => raw(`{"__proto__":{"status":"inactive"},"currency":"KES","reference":"${ref}"}`),
  },
  {
    name: 'a "__proto__" key in holder',
    ...invalid('holder.__proto__'),
    request: (ref) => raw(`{"currency":"KES","reference":"${ref}","holder":{"__proto__":{}}}`),
  },
  {
    name: 'content-type text/plain',
    status: 415,
    code: 'unsupported_media_type',
    param: null,
    request: (ref) => raw(JSON.stringify({ currency: 'KES', reference: ref }), 'text/plain'),
  },
  {
    name: 'content-type form-encoded',
    status: 415,
    code: 'unsupported_media_type',
    param: null,
    request: (ref) => raw(`currency=KES&reference=${ref}`, 'application/x-www-form-urlencoded'),
  },
];

describe('create: bad input, one field at a time (nothing stored, reference still free)', () => {
  defineRowTests(createRows, ctx);
  defineNo5xxTest(createRows, ctx, 40);
});

describe('retrieve', () => {
  test('GET /v1/wallets/{id} returns the wallet as created', async () => {
    const created = (await post(app, m, '/v1/wallets', { currency: 'KES', metadata: { a: 'b' } })).json();
    const res = await get(app, m, `/v1/wallets/${created.id}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), created);
  });

  test("unknown and another merchant's wallet → identical 404 resource_not_found bodies", async () => {
    const foreign = await createWallet(app, other);
    const unknownRes = await get(app, m, `/v1/wallets/${newId('wallet')}`);
    const foreignRes = await get(app, m, `/v1/wallets/${foreign}`);
    assertApiError(unknownRes, notFound);
    assertApiError(foreignRes, notFound);
    assert.deepEqual(errorWithoutRequestId(foreignRes), errorWithoutRequestId(unknownRes));
  });

  for (const id of ['wal_123', '..%2F', '%00', '%22%27', 'x'.repeat(500), newId('payment'), 'WAL_01JD6X8V1FFQ8V2K3M4N5P6Q7R']) {
    test(`malformed id ${id.length > 40 ? `of ${id.length} characters` : JSON.stringify(id)} → 404 resource_not_found`, async () => {
      assertApiError(await get(app, m, `/v1/wallets/${id}`), notFound);
      assertApiError(await get(app, m, `/v1/wallets/${id}/transactions`), notFound);
      assertApiError(await freeze(m, id), notFound);
    });
  }

  test('an unknown query parameter → 400 parameter_unknown', async () => {
    const id = await createWallet(app, m);
    assertApiError(await get(app, m, `/v1/wallets/${id}?expand=holder`), unknown('expand'));
  });
});

describe('list', () => {
  test("newest first, cursor pages in both directions, never another merchant's wallets", async () => {
    const merchant = await createTestMerchant(app, 'Lister');
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push(await createWallet(app, merchant, i % 2 ? 'UGX' : 'KES'));
    await createWallet(app, other);
    const expected = [...created].sort().reverse();

    const all = await get(app, merchant, '/v1/wallets?limit=100');
    assert.equal(all.statusCode, 200, all.body);
    assert.deepEqual(all.json().object, 'list');
    assert.deepEqual(ids(all.json()), expected);
    assert.equal(all.json().has_more, false);

    const p1 = (await get(app, merchant, '/v1/wallets?limit=2')).json();
    const p2 = (await get(app, merchant, `/v1/wallets?limit=2&starting_after=${p1.data[1].id}`)).json();
    const p3 = (await get(app, merchant, `/v1/wallets?limit=2&starting_after=${p2.data[1].id}`)).json();
    assert.deepEqual([...ids(p1), ...ids(p2), ...ids(p3)], expected);
    assert.deepEqual([p1.has_more, p2.has_more, p3.has_more], [true, true, false]);

    const back = (await get(app, merchant, `/v1/wallets?limit=2&ending_before=${p3.data[0].id}`)).json();
    assert.deepEqual(ids(back), expected.slice(2, 4));
    assert.equal(back.has_more, true);

    const defaultLimit = (await get(app, merchant, '/v1/wallets')).json();
    assert.equal(defaultLimit.data.length, 5);
  });

  for (const [query, param, code] of [
    ['limit=0', 'limit', 'parameter_invalid'],
    ['limit=101', 'limit', 'parameter_invalid'],
    ['limit=abc', 'limit', 'parameter_invalid'],
    [`starting_after=${newId('wallet')}&ending_before=${newId('wallet')}`, 'ending_before', 'parameter_invalid'],
    [`starting_after=${newId('payment')}`, 'starting_after', 'parameter_invalid'],
    ['currency=KES', 'currency', 'parameter_unknown'],
  ] as const) {
    test(`GET /v1/wallets?${query.slice(0, 40)} → 400 ${code} (${param})`, async () => {
      assertApiError(await get(app, m, `/v1/wallets?${query}`), { status: 400, code, param });
    });
  }
});

describe('freeze and unfreeze', () => {
  test('freeze → inactive, again → still inactive (idempotent), unfreeze → active', async () => {
    const id = await createWallet(app, m);
    const frozen = await freeze(m, id);
    assert.equal(frozen.statusCode, 200, frozen.body);
    assert.equal(frozen.json().status, 'inactive');
    assert.deepEqual(Object.keys(frozen.json()).sort(), WALLET_KEYS);
    const again = await freeze(m, id);
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().status, 'inactive');
    assert.equal((await get(app, m, `/v1/wallets/${id}`)).json().status, 'inactive');
    const thawed = await freeze(m, id, 'unfreeze');
    assert.equal(thawed.statusCode, 200);
    assert.equal(thawed.json().status, 'active');
    assert.equal((await freeze(m, id, 'unfreeze')).json().status, 'active');
    // An empty JSON object is "no body" too.
    assert.equal((await post(app, m, `/v1/wallets/${id}/freeze`, {})).json().status, 'inactive');
  });

  test("unknown and another merchant's wallet → identical 404; the other merchant's wallet stays active", async () => {
    const foreign = await createWallet(app, other);
    for (const action of ['freeze', 'unfreeze'] as const) {
      const unknownRes = await freeze(m, newId('wallet'), action);
      const foreignRes = await freeze(m, foreign, action);
      assertApiError(unknownRes, notFound);
      assertApiError(foreignRes, notFound);
      assert.deepEqual(errorWithoutRequestId(foreignRes), errorWithoutRequestId(unknownRes));
    }
    assert.equal((await get(app, other, `/v1/wallets/${foreign}`)).json().status, 'active');
  });

  test('a body with a field → 400 parameter_unknown; an unknown query parameter → 400; the wallet is unchanged', async () => {
    const id = await createWallet(app, m);
    assertApiError(await post(app, m, `/v1/wallets/${id}/freeze`, { status: 'inactive' }), unknown('status'));
    assertApiError(await post(app, m, `/v1/wallets/${id}/freeze`, { reason: 'fraud' }), unknown('reason'));
    assertApiError(await app.inject({ method: 'POST', url: `/v1/wallets/${id}/freeze?reason=x`, headers: m.auth }), unknown('reason'));
    assertApiError(
      await app.inject({
        method: 'POST',
        url: `/v1/wallets/${id}/freeze`,
        headers: { ...m.auth, 'content-type': 'text/plain' },
        payload: 'x',
      }),
      { status: 415, code: 'unsupported_media_type', param: null },
    );
    assert.equal((await get(app, m, `/v1/wallets/${id}`)).json().status, 'active');
  });

  test('a frozen wallet refuses payments and top-ups as business outcomes; unfrozen, it takes them again', async () => {
    const id = await fundedWallet(app, m, '100.00');
    await freeze(m, id);
    const payment = await post(app, m, '/v1/payments', paymentBody({ amount: '10.00', payment_method: walletMethod(id) }));
    assert.equal(payment.statusCode, 201, payment.body);
    assert.equal(payment.json().failure.code, 'wallet_inactive');
    const topup = await post(app, m, '/v1/topups', {
      reference: uniqueRef('t'),
      amount: '10.00',
      currency: 'KES',
      wallet_id: id,
      source: cardMethod(),
    });
    assert.equal(topup.statusCode, 201, topup.body);
    assert.equal(topup.json().failure.code, 'wallet_inactive');
    assert.equal((await get(app, m, `/v1/wallets/${id}`)).json().balance, '100.00');
    await freeze(m, id, 'unfreeze');
    const ok = await post(app, m, '/v1/payments', paymentBody({ amount: '10.00', payment_method: walletMethod(id) }));
    assert.equal(ok.json().status, 'succeeded', ok.body);
    assert.equal((await get(app, m, `/v1/wallets/${id}`)).json().balance, '90.00');
  });
});

describe('transactions', () => {
  test('the ledger entries of the wallet, newest first, signed, with balance_after and the source', async () => {
    const id = await createWallet(app, m);
    const topup = await post(app, m, '/v1/topups', {
      reference: uniqueRef('t'),
      amount: '500.00',
      currency: 'KES',
      wallet_id: id,
      source: cardMethod(),
    });
    assert.equal(topup.json().status, 'succeeded', topup.body);
    const payment = await post(app, m, '/v1/payments', paymentBody({ amount: '200.00', payment_method: walletMethod(id) }));
    assert.equal(payment.json().status, 'succeeded', payment.body);
    const refused = await post(app, m, '/v1/payments', paymentBody({ amount: '300.01', payment_method: walletMethod(id) }));
    assert.equal(refused.json().failure.code, 'insufficient_funds');

    const res = await get(app, m, `/v1/wallets/${id}/transactions`);
    assert.equal(res.statusCode, 200, res.body);
    const list = res.json();
    assert.equal(list.object, 'list');
    assert.equal(list.has_more, false);
    assert.equal(list.data.length, 2, 'the refused payment wrote no entry');
    for (const entry of list.data) {
      assert.deepEqual(Object.keys(entry).sort(), TRANSACTION_KEYS);
      assert.match(entry.id, /^wtx_/);
      assert.equal(entry.object, 'wallet_transaction');
      assert.equal(entry.currency, 'KES');
      assert.match(entry.created_at, ISO_MS);
    }
    const [newest, oldest] = list.data;
    assert.deepEqual(
      { amount: newest.amount, balance_after: newest.balance_after, source_type: newest.source_type, source_id: newest.source_id },
      { amount: '-200.00', balance_after: '300.00', source_type: 'payment', source_id: payment.json().id },
    );
    assert.deepEqual(
      { amount: oldest.amount, balance_after: oldest.balance_after, source_type: oldest.source_type, source_id: oldest.source_id },
      { amount: '+500.00', balance_after: '500.00', source_type: 'topup', source_id: topup.json().id },
    );
    assert.equal((await get(app, m, `/v1/wallets/${id}`)).json().balance, '300.00');

    const page1 = (await get(app, m, `/v1/wallets/${id}/transactions?limit=1`)).json();
    assert.deepEqual(ids(page1), [newest.id]);
    assert.equal(page1.has_more, true);
    const page2 = (await get(app, m, `/v1/wallets/${id}/transactions?limit=1&starting_after=${newest.id}`)).json();
    assert.deepEqual(ids(page2), [oldest.id]);
    assert.equal(page2.has_more, false);
    const back = (await get(app, m, `/v1/wallets/${id}/transactions?limit=1&ending_before=${oldest.id}`)).json();
    assert.deepEqual(ids(back), [newest.id]);
    assert.equal(back.has_more, false);
  });

  test("unknown and another merchant's wallet → identical 404; list errors → 400", async () => {
    const foreign = await fundedWallet(app, other, '10.00');
    const unknownRes = await get(app, m, `/v1/wallets/${newId('wallet')}/transactions`);
    const foreignRes = await get(app, m, `/v1/wallets/${foreign}/transactions`);
    assertApiError(unknownRes, notFound);
    assertApiError(foreignRes, notFound);
    assert.deepEqual(errorWithoutRequestId(foreignRes), errorWithoutRequestId(unknownRes));
    const own = await createWallet(app, m);
    for (const [query, param, code] of [
      ['limit=0', 'limit', 'parameter_invalid'],
      ['limit=101', 'limit', 'parameter_invalid'],
      ['limit=abc', 'limit', 'parameter_invalid'],
      [`starting_after=${newId('walletTransaction')}&ending_before=${newId('walletTransaction')}`, 'ending_before', 'parameter_invalid'],
      [`starting_after=${own}`, 'starting_after', 'parameter_invalid'],
      ['source_type=payment', 'source_type', 'parameter_unknown'],
    ] as const) {
      assertApiError(await get(app, m, `/v1/wallets/${own}/transactions?${query}`), { status: 400, code, param }, query);
    }
  });

  test("another merchant's entry id as a cursor never returns that merchant's entries", async () => {
    const foreign = await fundedWallet(app, other, '10.00');
    const foreignEntry = (await get(app, other, `/v1/wallets/${foreign}/transactions`)).json().data[0].id as string;
    const own = await fundedWallet(app, m, '10.00');
    const ownEntries = new Set(ids((await get(app, m, `/v1/wallets/${own}/transactions`)).json()));
    for (const cursor of ['starting_after', 'ending_before']) {
      const res = await get(app, m, `/v1/wallets/${own}/transactions?${cursor}=${foreignEntry}`);
      assert.equal(res.statusCode, 200, res.body);
      for (const id of ids(res.json())) assert.ok(ownEntries.has(id), `${id} is not an entry of this wallet`);
      assert.ok(!res.body.includes(foreignEntry), 'no foreign entry');
    }
  });
});

describe('balance', () => {
  test('a new merchant has nothing collected; then card and wallet payments count, top-ups and failures do not', async () => {
    const merchant = await createTestMerchant(app, 'Balance');
    const empty = await get(app, merchant, '/v1/balance');
    assert.equal(empty.statusCode, 200, empty.body);
    assert.equal(empty.json().object, 'balance');
    assert.equal(empty.json().livemode, false);
    assert.ok(Array.isArray(empty.json().available));
    assert.ok(
      empty.json().available.every((a: { amount: string }) => /^0(\.0+)?$/.test(a.amount)),
      empty.body,
    );

    const wallet = await fundedWallet(app, merchant, '500.00');
    assert.equal((await post(app, merchant, '/v1/payments', paymentBody({ amount: '100.00' }))).json().status, 'succeeded');
    assert.equal(
      (await post(app, merchant, '/v1/payments', paymentBody({ amount: '30.00', payment_method: walletMethod(wallet) }))).json().status,
      'succeeded',
    );
    assert.equal(
      (
        await post(
          app,
          merchant,
          '/v1/payments',
          paymentBody({ amount: '9.00', payment_method: cardMethod({ number: '4000000000000002' }) }),
        )
      ).json().status,
      'failed',
    );
    assert.equal(
      (await post(app, merchant, '/v1/payments', paymentBody({ amount: '999.00', payment_method: walletMethod(wallet) }))).json().status,
      'failed',
    );
    assert.equal((await post(app, merchant, '/v1/payments', paymentBody({ amount: '1500', currency: 'UGX' }))).json().status, 'succeeded');
    // Another merchant's takings are not ours.
    await post(app, other, '/v1/payments', paymentBody({ amount: '77.00' }));

    const res = await get(app, merchant, '/v1/balance');
    assert.equal(res.statusCode, 200, res.body);
    const available = Object.fromEntries(res.json().available.map((a: { currency: string; amount: string }) => [a.currency, a.amount]));
    assert.deepEqual(available, { KES: '130.00', UGX: '1500' });
    assert.equal((await get(app, merchant, `/v1/wallets/${wallet}`)).json().balance, '470.00');
  });

  test('an unknown query parameter → 400 parameter_unknown', async () => {
    assertApiError(await get(app, m, '/v1/balance?currency=KES'), unknown('currency'));
  });

  test('POST /v1/balance → 405 with Allow', async () => {
    const res = await post(app, m, '/v1/balance', {});
    assertApiError(res, { status: 405, code: 'method_not_allowed', param: null });
    assert.match(String(res.headers.allow), /\bGET\b/);
  });
});

describe('ledger', () => {
  test('the ledger is healthy after everything above', async () => {
    await assertLedgerHealthy(app);
  });
});
