// Transfers between two wallets of one merchant (docs/api.md §13): the money moves in one
// statement with its posting and event; a poor or frozen wallet gives 201 failed and moves
// nothing; references follow §7; another merchant's transfer reads like an unknown one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { newId } from '../../src/shared/ids.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { assertApiError, errorWithoutRequestId, storedCounts } from '../helpers/bad-input.ts';
import { assertLedgerHealthy, createWallet, fundedWallet, get, post, uniqueRef } from '../helpers/factories.ts';

let app: TestApp;
let m: TestMerchant;
let other: TestMerchant;

before(async () => {
  app = await buildTestApp(null, { env: { PURSE_WORKER: 'false' } });
  m = await createTestMerchant(app, 'Transfers merchant');
  other = await createTestMerchant(app, 'Other merchant');
});

after(async () => {
  await app.close();
  await app.deps.close();
});

const transferBody = (source: string, destination: string, overrides: Record<string, unknown> = {}) => ({
  reference: uniqueRef('tr'),
  amount: '30.00',
  currency: 'KES',
  source_wallet_id: source,
  destination_wallet_id: destination,
  ...overrides,
});

const balance = async (walletId: string) => (await get(app, m, `/v1/wallets/${walletId}`)).json().balance as string;

async function eventsOf(objectId: string): Promise<Array<{ type: string; data: { object: Record<string, unknown> } }>> {
  const res = await get(app, m, `/v1/events?object_id=${objectId}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

describe('moving money', () => {
  test('201 succeeded with Location: balances move, both wallet lines, one posting, transfer.succeeded', async () => {
    const source = await fundedWallet(app, m, '100.00');
    const destination = await createWallet(app, m);
    const body = transferBody(source, destination, { amount: '30.5', description: 'Rent share', metadata: { flat: '4b' } });
    const res = await post(app, m, '/v1/transfers', body);
    assert.equal(res.statusCode, 201, res.body);
    const transfer = res.json();
    assert.match(transfer.id, /^tr_[0-9a-z]{26}$/);
    assert.equal(res.headers.location, `/v1/transfers/${transfer.id}`);
    assert.deepEqual(Object.keys(transfer), [
      'id',
      'object',
      'reference',
      'status',
      'amount',
      'currency',
      'source_wallet_id',
      'destination_wallet_id',
      'failure',
      'description',
      'metadata',
      'livemode',
      'created_at',
    ]);
    assert.equal(transfer.object, 'transfer');
    assert.equal(transfer.status, 'succeeded');
    assert.equal(transfer.amount, '30.50', 'canonical amount');
    assert.equal(transfer.failure, null);
    assert.deepEqual(transfer.metadata, { flat: '4b' });
    assert.equal(transfer.livemode, false);
    assert.equal(await balance(source), '69.50');
    assert.equal(await balance(destination), '30.50');

    const sourceLines = (await get(app, m, `/v1/wallets/${source}/transactions`)).json().data;
    assert.equal(sourceLines[0].amount, '-30.50');
    assert.equal(sourceLines[0].balance_after, '69.50');
    assert.equal(sourceLines[0].source_type, 'transfer');
    assert.equal(sourceLines[0].source_id, transfer.id);
    const destinationLines = (await get(app, m, `/v1/wallets/${destination}/transactions`)).json().data;
    assert.deepEqual(
      destinationLines.map((l: Record<string, string>) => [l.amount, l.balance_after, l.source_type, l.source_id]),
      [['+30.50', '30.50', 'transfer', transfer.id]],
    );

    const events = await eventsOf(transfer.id);
    assert.deepEqual(
      events.map((e) => e.type),
      ['transfer.succeeded'],
    );
    assert.deepEqual(events[0]!.data.object, transfer, 'the event carries the transfer as answered');
    const retrieved = await get(app, m, `/v1/transfers/${transfer.id}`);
    assert.equal(retrieved.statusCode, 200);
    assert.deepEqual(retrieved.json(), transfer);
    await assertLedgerHealthy(app);
  });

  const failures: [string, string, (s: string, d: string) => Promise<void>][] = [
    ['a source too poor', 'insufficient_funds', async () => {}],
    ['a frozen source', 'wallet_inactive', async (s) => void (await post(app, m, `/v1/wallets/${s}/freeze`, {}))],
    ['a frozen destination', 'wallet_inactive', async (_s, d) => void (await post(app, m, `/v1/wallets/${d}/freeze`, {}))],
  ];
  for (const [what, code, setUp] of failures) {
    test(`${what} → 201 failed ${code}: nothing moves, no posting, transfer.failed; the replay is the failed object`, async () => {
      const source = await fundedWallet(app, m, '20.00');
      const destination = await fundedWallet(app, m, '5.00');
      await setUp(source, destination);
      const body = transferBody(source, destination, { amount: code === 'insufficient_funds' ? '20.01' : '1.00' });
      const res = await post(app, m, '/v1/transfers', body);
      assert.equal(res.statusCode, 201, res.body);
      const transfer = res.json();
      assert.equal(transfer.status, 'failed');
      assert.equal(transfer.failure.code, code);
      assert.equal(typeof transfer.failure.message, 'string');
      assert.equal(await balance(source), '20.00');
      assert.equal(await balance(destination), '5.00');
      for (const w of [source, destination]) {
        const lines = (await get(app, m, `/v1/wallets/${w}/transactions`)).json().data;
        assert.equal(lines.length, 1, 'only the funding top-up');
      }
      const postings = await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM ledger_transactions WHERE source_id = ${transfer.id}`.execute(app.deps.db.db);
      assert.equal(Number(postings.rows[0]!.n), 0);
      const events = await eventsOf(transfer.id);
      assert.deepEqual(
        events.map((e) => e.type),
        ['transfer.failed'],
      );
      assert.deepEqual(events[0]!.data.object, transfer);
      const replay = await post(app, m, '/v1/transfers', body);
      assert.equal(replay.statusCode, 200, replay.body);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.deepEqual(replay.json(), transfer, 'the reference is used up by the failed transfer');
      await assertLedgerHealthy(app);
    });
  }
});

describe('replays and conflicts (docs/api.md §7, scoped to transfers)', () => {
  test('same reference, same request → 200 Idempotent-Replayed, the money moves once', async () => {
    const source = await fundedWallet(app, m, '50.00');
    const destination = await createWallet(app, m);
    const body = transferBody(source, destination, { amount: '10.00' });
    const first = await post(app, m, '/v1/transfers', body);
    assert.equal(first.statusCode, 201, first.body);
    const before = await storedCounts(app, m.merchantId);
    // The same request in another spelling of the amount is still the same request.
    const second = await post(app, m, '/v1/transfers', { ...body, amount: '10' });
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.deepEqual(second.json(), first.json());
    assert.deepEqual(await storedCounts(app, m.merchantId), before);
    assert.equal(await balance(source), '40.00');
    assert.equal(await balance(destination), '10.00');
  });

  const conflicts: [string, (w: string) => Record<string, unknown>][] = [
    ['amount', () => ({ amount: '10.01' })],
    ['destination_wallet_id', (w) => ({ destination_wallet_id: w })],
    ['description', () => ({ description: 'changed' })],
    ['metadata', () => ({ metadata: { a: 'b' } })],
  ];
  for (const [field, change] of conflicts) {
    test(`same reference, different ${field} → 409 reference_conflict naming it, existing_id, nothing moves`, async () => {
      const source = await fundedWallet(app, m, '50.00');
      const destination = await createWallet(app, m);
      const third = await createWallet(app, m);
      const body = transferBody(source, destination, { amount: '10.00' });
      const first = await post(app, m, '/v1/transfers', body);
      assert.equal(first.statusCode, 201, first.body);
      const before = await storedCounts(app, m.merchantId);
      const res = await post(app, m, '/v1/transfers', { ...body, ...change(third) });
      const error = assertApiError(res, { status: 409, code: 'reference_conflict', param: 'reference' });
      assert.equal(error.existing_id, first.json().id);
      assert.ok(error.message.includes(field), error.message);
      assert.deepEqual(await storedCounts(app, m.merchantId), before);
      assert.equal(await balance(source), '40.00');
      assert.equal(await balance(third), '0.00');
    });
  }

  test('a transfer and a payment may share a reference; two merchants may share one', async () => {
    const reference = uniqueRef('shared');
    const source = await fundedWallet(app, m, '10.00');
    const destination = await createWallet(app, m);
    assert.equal((await post(app, m, '/v1/transfers', transferBody(source, destination, { reference, amount: '1.00' }))).statusCode, 201);
    const payment = await post(app, m, '/v1/payments', {
      reference,
      amount: '1.00',
      currency: 'KES',
      payment_method: { type: 'wallet', wallet: { wallet_id: source } },
    });
    assert.equal(payment.statusCode, 201, payment.body);
    const theirs = await post(app, other, '/v1/transfers', {
      ...transferBody(await fundedWallet(app, other, '5.00'), await createWallet(app, other)),
      reference,
      amount: '1.00',
    });
    assert.equal(theirs.statusCode, 201, theirs.body);
  });
});

describe('retrieve and list', () => {
  test("another merchant's transfer answers exactly like an unknown one, on retrieve and in lists", async () => {
    const theirSource = await fundedWallet(app, other, '5.00');
    const theirs = await post(app, other, '/v1/transfers', transferBody(theirSource, await createWallet(app, other), { amount: '1.00' }));
    assert.equal(theirs.statusCode, 201, theirs.body);
    const id = theirs.json().id as string;
    const answers = [];
    for (const probe of [id, newId('transfer'), 'tr_123', newId('payment')]) {
      const res = await get(app, m, `/v1/transfers/${probe}`);
      assertApiError(res, { status: 404, code: 'resource_not_found', param: null }, probe);
      answers.push(errorWithoutRequestId(res));
    }
    for (const a of answers.slice(1)) assert.deepEqual(a, answers[0]);
    const listed = await get(app, m, `/v1/transfers?wallet_id=${theirSource}`);
    assert.deepEqual(listed.json().data, []);
    const byRef = await get(app, m, `/v1/transfers?reference=${encodeURIComponent(theirs.json().reference)}`);
    assert.deepEqual(byRef.json().data, []);
  });

  test('the list: newest first, cursors, and the reference, status, wallet_id and created filters', async () => {
    const a = await fundedWallet(app, m, '10.00');
    const b = await createWallet(app, m);
    const c = await createWallet(app, m);
    const ok1 = (await post(app, m, '/v1/transfers', transferBody(a, b, { amount: '1.00' }))).json();
    const ok2 = (await post(app, m, '/v1/transfers', transferBody(b, c, { amount: '1.00' }))).json();
    const failed = (await post(app, m, '/v1/transfers', transferBody(c, a, { amount: '9.00' }))).json();
    assert.deepEqual([ok1.status, ok2.status, failed.status], ['succeeded', 'succeeded', 'failed']);
    const ids = async (query: string) => {
      const res = await get(app, m, `/v1/transfers?${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data.map((t: { id: string }) => t.id);
    };
    assert.deepEqual(await ids(`wallet_id=${b}`), [ok2.id, ok1.id], 'either side matches');
    assert.deepEqual(await ids(`wallet_id=${a}`), [failed.id, ok1.id]);
    assert.deepEqual(await ids(`wallet_id=${c}&status=failed`), [failed.id]);
    assert.deepEqual(await ids(`wallet_id=${c}&status=succeeded`), [ok2.id]);
    assert.deepEqual(await ids(`reference=${encodeURIComponent(ok1.reference)}`), [ok1.id]);
    assert.deepEqual(await ids(`wallet_id=${b}&limit=1&starting_after=${ok2.id}`), [ok1.id]);
    assert.deepEqual(await ids(`wallet_id=${b}&limit=1&ending_before=${ok1.id}`), [ok2.id]);
    assert.deepEqual(await ids(`wallet_id=${a}&created_gte=${encodeURIComponent(failed.created_at)}`), [failed.id]);
    assert.deepEqual(await ids(`wallet_id=${a}&created_lte=${encodeURIComponent(ok1.created_at)}`), [ok1.id]);
  });

  const badQueries: [string, string][] = [
    ['status=pending', 'status'],
    ['created_gte=yesterday', 'created_gte'],
    ['limit=0', 'limit'],
    [`starting_after=${newId('payment')}`, 'starting_after'],
  ];
  for (const [query, param] of badQueries) {
    test(`GET /v1/transfers?${query.split('=')[0]}=… invalid → 400 parameter_invalid (${param})`, async () => {
      assertApiError(await get(app, m, `/v1/transfers?${query}`), { status: 400, code: 'parameter_invalid', param });
    });
  }
  test('GET /v1/transfers?payment_method_type=card → 400 parameter_unknown', async () => {
    assertApiError(await get(app, m, '/v1/transfers?payment_method_type=card'), {
      status: 400,
      code: 'parameter_unknown',
      param: 'payment_method_type',
    });
  });
});
