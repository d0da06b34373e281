// The fake acquirer's idempotency layer as Stripe documents it (replay with Idempotent-Replayed,
// 400 idempotency_error, 409 idempotency_key_in_use, keys per secret key, validation refusals and
// 409s not saved, 500s saved), each injectable fault, the counters that prove one authorisation per
// Purse payment whatever the retries, search by metadata and the events API.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createIntent, get, intentParams, post, purseId } from './acquirer/test-support.ts';
import { type FakeAcquirer, startFakeAcquirer } from './acquirer.ts';

let fake: FakeAcquirer;
before(async () => {
  fake = await startFakeAcquirer({ searchLagMs: 60_000 });
});
after(() => fake.close());

const key = () => `key-${purseId()}`;

describe('idempotency', () => {
  test('same key, same body: the first answer replayed with Idempotent-Replayed and Original-Request; one authorisation', async () => {
    const k = key();
    const params = intentParams('4242424242424242');
    const first = await post(fake, '/v1/payment_intents', params, { key: k });
    assert.equal(first.headers.get('idempotent-replayed'), null);
    for (let i = 0; i < 3; i++) {
      const again = await post(fake, '/v1/payment_intents', params, { key: k });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, first.body);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.headers.get('original-request'), first.headers.get('request-id'));
    }
    const id = (params.metadata as { purse_payment_id: string }).purse_payment_id;
    assert.equal(fake.counts(id).authorisations, 1);
    assert.equal(fake.requests.filter((r) => r.idempotencyKey === k && r.replayed).length, 3);
  });

  test('a declined create is replayed as the same 402 (the same intent), not tried again', async () => {
    const k = key();
    const params = intentParams('4000000000000002');
    const first = await post(fake, '/v1/payment_intents', params, { key: k });
    const again = await post(fake, '/v1/payment_intents', params, { key: k });
    assert.deepEqual([again.status, again.body], [402, first.body]);
    assert.equal(fake.countsForIntent(first.body.error.payment_intent.id).authorisations, 1);
  });

  test('parameters in another order are the same request; other parameters or another endpoint are 400 idempotency_error', async () => {
    const k = key();
    const params = intentParams('4242424242424242');
    const first = await post(fake, '/v1/payment_intents', params, { key: k });
    const reordered = Object.fromEntries(Object.entries(params).reverse());
    assert.equal((await post(fake, '/v1/payment_intents', reordered, { key: k })).body.id, first.body.id);
    const other = await post(fake, '/v1/payment_intents', { ...params, amount: 1051 }, { key: k });
    assert.equal(other.status, 400);
    assert.equal(other.body.error.type, 'idempotency_error');
    assert.match(other.body.error.message, /same parameters/);
    const elsewhere = await post(fake, `/v1/payment_intents/${first.body.id}/cancel`, {}, { key: k });
    assert.deepEqual([elsewhere.status, elsewhere.body.error.type], [400, 'idempotency_error']);
    assert.match(
      elsewhere.body.error.message,
      /same endpoint they were first used for \('\/v1\/payment_intents' vs '\/v1\/payment_intents\/pi_\w+\/cancel'\)/,
    );
  });

  test('a key whose first request is still running: 409 idempotency_key_in_use (not saved); afterwards the replay', async () => {
    fake.inject('create_intent', 'slow', { delayMs: 300 });
    const k = key();
    const params = intentParams('4242424242424242');
    const first = post(fake, '/v1/payment_intents', params, { key: k });
    while (!fake.requests.some((r) => r.idempotencyKey === k)) await new Promise((resolve) => setTimeout(resolve, 5));
    const b = await post(fake, '/v1/payment_intents', params, { key: k });
    const a = await first;
    assert.equal(a.status, 200);
    assert.equal(b.status, 409);
    assert.deepEqual([b.body.error.code, b.headers.get('stripe-should-retry')], ['idempotency_key_in_use', 'true']);
    const later = await post(fake, '/v1/payment_intents', params, { key: k });
    assert.deepEqual([later.status, later.body.id, later.headers.get('idempotent-replayed')], [200, a.body.id, 'true']);
    assert.equal(fake.countsForIntent(a.body.id).authorisations, 1);
  });

  test('keys belong to the secret key: the same key on another account is another request', async () => {
    const k = key();
    const other = fake.addAccount();
    const mine = await post(fake, '/v1/payment_intents', intentParams('4242424242424242'), { key: k });
    const theirs = await post(fake, '/v1/payment_intents', intentParams('4242424242424242'), { key: k, secretKey: other });
    assert.equal(theirs.status, 200);
    assert.notEqual(theirs.body.id, mine.body.id);
    assert.equal(theirs.headers.get('idempotent-replayed'), null);
  });

  test('a request refused by validation saves nothing: the key can carry a corrected request', async () => {
    const k = key();
    const bad = await post(fake, '/v1/payment_intents', intentParams('4242424242424242', { amount: 'ten' }), { key: k });
    assert.equal(bad.status, 400);
    const good = await post(fake, '/v1/payment_intents', intentParams('4242424242424242'), { key: k });
    assert.deepEqual([good.status, good.headers.get('idempotent-replayed')], [200, null]);
    const long = await post(fake, '/v1/payment_intents', intentParams('4242424242424242'), { key: 'k'.repeat(256) });
    assert.equal(long.status, 400);
  });

  test('a state error is saved like any answer; keys are forgotten after 24 hours', async () => {
    const paid = (await createIntent(fake, '4242424242424242')).body;
    const k = key();
    const first = await post(fake, `/v1/payment_intents/${paid.id}/capture`, {}, { key: k });
    assert.equal(first.body.error.code, 'payment_intent_unexpected_state');
    assert.equal((await post(fake, `/v1/payment_intents/${paid.id}/capture`, {}, { key: k })).headers.get('idempotent-replayed'), 'true');
    const k2 = key();
    const params = intentParams('4242424242424242');
    const before = await post(fake, '/v1/payment_intents', params, { key: k2 });
    fake.advanceTime(24 * 3600 * 1000 + 1000);
    const afterADay = await post(fake, '/v1/payment_intents', params, { key: k2 });
    assert.notEqual(afterADay.body.id, before.body.id);
  });
});

describe('faults', () => {
  test('lose_answer: the intent is created, the connection dies; the replay with the key returns it', async () => {
    fake.inject('create_intent', 'lose_answer');
    const k = key();
    const params = intentParams('4242424242424242');
    const id = (params.metadata as { purse_payment_id: string }).purse_payment_id;
    await assert.rejects(post(fake, '/v1/payment_intents', params, { key: k }));
    assert.equal(fake.intentsFor(id).length, 1);
    const replay = await post(fake, '/v1/payment_intents', params, { key: k });
    assert.deepEqual([replay.status, replay.body.id, replay.body.status], [200, fake.intentsFor(id)[0], 'succeeded']);
    assert.equal(fake.counts(id).authorisations, 1);
    assert.equal(fake.requests.find((r) => r.idempotencyKey === k)?.status, 'lost');
  });

  test('error_500_before: nothing happens and the 500 is saved under the key (a new key acts); remember:false saves nothing', async () => {
    fake.inject('create_intent', 'error_500_before');
    const k = key();
    const params = intentParams('4242424242424242');
    const id = (params.metadata as { purse_payment_id: string }).purse_payment_id;
    const res = await post(fake, '/v1/payment_intents', params, { key: k });
    assert.deepEqual([res.status, res.body.error.type], [500, 'api_error']);
    assert.equal(fake.intentsFor(id).length, 0);
    const same = await post(fake, '/v1/payment_intents', params, { key: k });
    assert.deepEqual([same.status, same.headers.get('idempotent-replayed')], [500, 'true']);
    assert.equal((await post(fake, '/v1/payment_intents', params, { key: key() })).status, 200);
    fake.inject('create_intent', 'error_500_before', { remember: false });
    const k2 = key();
    assert.equal((await post(fake, '/v1/payment_intents', params, { key: k2 })).status, 500);
    assert.equal((await post(fake, '/v1/payment_intents', params, { key: k2 })).status, 200);
  });

  test('error_500_after: the capture happened, 500 answered and saved; the state is read with GET', async () => {
    const held = (await createIntent(fake, '4242424242424242', { capture_method: 'manual' })).body;
    fake.inject('capture_intent', 'error_500_after');
    const k = key();
    assert.equal((await post(fake, `/v1/payment_intents/${held.id}/capture`, {}, { key: k })).status, 500);
    assert.equal((await get(fake, `/v1/payment_intents/${held.id}`)).body.status, 'succeeded');
    assert.equal((await post(fake, `/v1/payment_intents/${held.id}/capture`, {}, { key: k })).status, 500);
    assert.equal(fake.countsForIntent(held.id).captures, 1);
  });

  test('slow answers; faults for any endpoint and for n requests; replays and refusals do not use them up', async () => {
    const pi = (await createIntent(fake, '4242424242424242')).body;
    fake.inject('retrieve_intent', 'slow', { delayMs: 150 });
    const started = Date.now();
    assert.equal((await get(fake, `/v1/payment_intents/${pi.id}`)).status, 200);
    assert.ok(Date.now() - started >= 150, 'answered after the delay');
    fake.inject('*', 'error_500_before', { times: 2 });
    assert.equal((await get(fake, `/v1/payment_intents/${pi.id}`)).status, 500);
    assert.equal((await post(fake, '/v1/refunds', { payment_intent: pi.id, amount: 1 })).status, 500);
    assert.equal((await get(fake, `/v1/payment_intents/${pi.id}`)).status, 200);
    fake.inject('create_intent', 'lose_answer');
    assert.equal((await createIntent(fake, '4242424242424242', { amount: 'x' })).status, 400);
    await assert.rejects(createIntent(fake, '4242424242424242'));
    fake.inject('create_intent', 'lose_answer');
    fake.clearFaults();
    assert.equal((await createIntent(fake, '4242424242424242')).status, 200);
  });
});

describe('counters', () => {
  test('per Purse payment: one authorisation, capture and refund however often each request is repeated', async () => {
    const params = intentParams('4242424242424242', { capture_method: 'manual' });
    const id = (params.metadata as { purse_payment_id: string }).purse_payment_id;
    const [k1, k2, k3] = [key(), key(), key()];
    let pi: { id: string } | undefined;
    for (let i = 0; i < 3; i++) pi = (await post(fake, '/v1/payment_intents', params, { key: k1 })).body;
    for (let i = 0; i < 3; i++) await post(fake, `/v1/payment_intents/${pi?.id}/capture`, { amount_to_capture: 1000 }, { key: k2 });
    for (let i = 0; i < 3; i++) await post(fake, '/v1/refunds', { payment_intent: pi?.id, amount: 500 }, { key: k3 });
    assert.deepEqual(fake.counts(id), { authorisations: 1, captures: 1, cancels: 0, refunds: 1, holdExpiries: 0 });
    assert.deepEqual(
      fake.operations.filter((o) => o.pursePaymentId === id).map((o) => o.operation),
      ['authorisation', 'capture', 'refund'],
    );
  });
});

describe('search and events', () => {
  test('search by metadata is not read-after-write: the intent shows up after the lag (on the fake’s clock)', async () => {
    const created = (await createIntent(fake, '4242424242424242')).body;
    const query = { query: `metadata['purse_payment_id']:'${created.metadata.purse_payment_id}'` };
    assert.deepEqual((await get(fake, '/v1/payment_intents/search', query)).body.data, []);
    fake.advanceTime(60_000);
    const found = (await get(fake, '/v1/payment_intents/search', query)).body;
    assert.deepEqual([found.object, found.data.map((p: { id: string }) => p.id)], ['search_result', [created.id]]);
    assert.equal((await get(fake, '/v1/payment_intents/search', { query: 'status:"succeeded"' })).status, 400);
  });

  test('events can be read back: GET /v1/events/{id} and the list by type', async () => {
    const pi = (await createIntent(fake, '4242424242424242')).body;
    const list = (await get(fake, '/v1/events', { type: 'payment_intent.succeeded', limit: 100 })).body;
    const event = list.data.find((e: { data: { object: { id: string } } }) => e.data.object.id === pi.id);
    assert.ok(event, 'the succeeded event is listed');
    assert.equal((await get(fake, `/v1/events/${event.id}`)).body.type, 'payment_intent.succeeded');
    assert.equal((await get(fake, '/v1/events/evt_nope')).status, 404);
  });
});
