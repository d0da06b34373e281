// The fake acquirer's webhooks: Stripe-Signature verified by a check written from Stripe's
// "verify manually" steps, the events each operation sends, signing with two secrets during a
// roll, the delivery modes (late, twice, out of order, never), retries after a failed delivery,
// the drop_webhooks fault, and a refund that fails after it looked successful.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  answerChallenge,
  createIntent,
  get,
  post,
  type Received,
  type Receiver,
  startReceiver,
  verifyStripeSignature,
} from './acquirer/test-support.ts';
import { type FakeAcquirer, startFakeAcquirer } from './acquirer.ts';

let fake: FakeAcquirer;
let receiver: Receiver;
before(async () => {
  receiver = await startReceiver();
  fake = await startFakeAcquirer({
    webhookUrl: receiver.url,
    webhookDelayMs: 100,
    webhookRetryDelaysMs: [20, 20],
    refundSettleDelayMs: 30,
  });
});
beforeEach(async () => {
  await fake.webhooks.settled();
  fake.webhooks.mode = 'immediate';
  receiver.status = 200;
  receiver.received.length = 0;
});
after(async () => {
  await fake.close();
  await receiver.close();
});

const typesFor = (id: string) =>
  receiver.received.filter((r) => (r.event.data.object as { id: string }).id === id).map((r) => r.event.type);

describe('signatures', () => {
  test('each delivery is signed: t and v1 over "t.body" with the webhook secret, within 300 s', async () => {
    const pi = (await createIntent(fake, '4242424242424242', {}, 'key-sig-1')).body;
    const received = await receiver.waitFor(3);
    for (const { raw, headers, event } of received) {
      assert.ok(verifyStripeSignature(raw, headers['stripe-signature'] as string, fake.webhookSecret), event.type);
      assert.ok(!verifyStripeSignature(raw, headers['stripe-signature'] as string, 'whsec_wrong'), 'another secret fails');
      assert.ok(
        !verifyStripeSignature(
          raw.replace('"livemode":false', '"livemode":true'),
          headers['stripe-signature'] as string,
          fake.webhookSecret,
        ),
        'a changed body fails',
      );
      assert.ok(
        !verifyStripeSignature(raw, headers['stripe-signature'] as string, fake.webhookSecret, 300, Date.now() / 1000 + 301),
        'an old timestamp fails',
      );
      assert.match(event.id, /^evt_/);
      assert.equal(event.object, 'event');
      assert.equal(typeof event.created, 'number');
      assert.equal(event.request.idempotency_key, 'key-sig-1');
    }
    assert.deepEqual(typesFor(pi.id), ['payment_intent.created', 'payment_intent.succeeded']);
    assert.deepEqual(
      received.map((r) => r.event.type),
      ['payment_intent.created', 'charge.succeeded', 'payment_intent.succeeded'],
    );
  });

  test('while a secret is rolled every delivery carries one v1 per active secret', async () => {
    const rolling = await startFakeAcquirer({ webhookUrl: receiver.url });
    try {
      const oldSecret = rolling.webhookSecret;
      const newSecret = rolling.webhooks.rollSecret();
      await createIntent(rolling, '4242424242424242');
      await rolling.webhooks.settled();
      const first = receiver.received[0] as Received;
      const header = first.headers['stripe-signature'] as string;
      assert.equal(header.split(',').filter((p) => p.startsWith('v1=')).length, 2);
      assert.ok(verifyStripeSignature(first.raw, header, oldSecret), 'the old secret verifies');
      assert.ok(verifyStripeSignature(first.raw, header, newSecret), 'the new secret verifies');
      rolling.webhooks.expireOldSecrets();
      receiver.received.length = 0;
      await createIntent(rolling, '4242424242424242');
      await rolling.webhooks.settled();
      const next = receiver.received[0] as Received;
      assert.ok(
        !verifyStripeSignature(next.raw, next.headers['stripe-signature'] as string, oldSecret),
        'the expired secret no longer verifies',
      );
      assert.ok(verifyStripeSignature(next.raw, next.headers['stripe-signature'] as string, newSecret), 'the new secret still verifies');
    } finally {
      await rolling.close();
    }
    const two = await startFakeAcquirer({ twoWebhookSecrets: true });
    assert.equal(two.webhooks.secrets.length, 2);
    assert.equal(two.webhooks.secrets[0], two.webhookSecret);
    await two.close();
  });
});

describe('events per operation', () => {
  test('manual capture, capture, cancel, a lapsed hold, a decline and a challenge', async () => {
    const held = (await createIntent(fake, '4242424242424242', { capture_method: 'manual' })).body;
    await post(fake, `/v1/payment_intents/${held.id}/capture`, { amount_to_capture: 500 });
    const toCancel = (await createIntent(fake, '4242424242424242', { capture_method: 'manual' })).body;
    await post(fake, `/v1/payment_intents/${toCancel.id}/cancel`, {});
    const lapsing = (await createIntent(fake, '4242424242424242', { capture_method: 'manual' })).body;
    fake.expireAuthorization(lapsing.id);
    const declined = (await createIntent(fake, '4000000000009995')).body.error.payment_intent;
    const challenged = (await createIntent(fake, '4000000000003220')).body;
    await answerChallenge(challenged.next_action.redirect_to_url.url, 'Fail');
    await fake.webhooks.settled();
    assert.deepEqual(typesFor(held.id), ['payment_intent.created', 'payment_intent.amount_capturable_updated', 'payment_intent.succeeded']);
    assert.deepEqual(typesFor(toCancel.id), [
      'payment_intent.created',
      'payment_intent.amount_capturable_updated',
      'payment_intent.canceled',
    ]);
    assert.deepEqual(typesFor(lapsing.id), [
      'payment_intent.created',
      'payment_intent.amount_capturable_updated',
      'payment_intent.canceled',
    ]);
    const expired = receiver.received.find(
      (r) => r.event.type === 'payment_intent.canceled' && (r.event.data.object as { id: string }).id === lapsing.id,
    );
    assert.equal((expired?.event.data.object as { cancellation_reason?: string } | undefined)?.cancellation_reason, 'automatic');
    assert.deepEqual(typesFor(declined.id), ['payment_intent.created', 'payment_intent.payment_failed']);
    assert.deepEqual(typesFor(challenged.id), [
      'payment_intent.created',
      'payment_intent.requires_action',
      'payment_intent.payment_failed',
    ]);
    const chargeTypes = receiver.received.filter((r) => r.event.type.startsWith('charge.')).map((r) => r.event.type);
    for (const type of ['charge.succeeded', 'charge.captured', 'charge.expired', 'charge.failed'])
      assert.ok(chargeTypes.includes(type), type);
  });

  test('a refund that looked succeeded fails later (4000000000005126): refund.failed, refund.updated, charge.refund.updated', async () => {
    const pi = (await createIntent(fake, '4000000000005126')).body;
    const refund = (await post(fake, '/v1/refunds', { payment_intent: pi.id })).body;
    assert.equal(refund.status, 'succeeded');
    await new Promise((resolve) => setTimeout(resolve, 80));
    await fake.webhooks.settled();
    const read = (await get(fake, `/v1/refunds/${refund.id}`)).body;
    assert.deepEqual([read.status, read.failure_reason], ['failed', 'expired_or_canceled_card']);
    assert.equal((await get(fake, `/v1/charges/${pi.latest_charge}`)).body.amount_refunded, 0);
    assert.deepEqual(typesFor(refund.id), ['refund.created', 'refund.failed', 'refund.updated', 'charge.refund.updated']);
    assert.ok(typesFor(pi.latest_charge).includes('charge.refunded'), 'charge.refunded');
    const other = (await createIntent(fake, '4242424242424242')).body;
    const ok = (await post(fake, '/v1/refunds', { payment_intent: other.id, amount: 100 })).body;
    fake.failRefund(ok.id, 'lost_or_stolen_card');
    assert.deepEqual([fake.refund(ok.id)?.status, fake.refund(ok.id)?.failure_reason], ['failed', 'lost_or_stolen_card']);
    assert.equal((await post(fake, '/v1/refunds', { payment_intent: other.id })).body.amount, 1050);
  });
});

describe('delivery', () => {
  test('late: nothing before the delay, everything after it', async () => {
    fake.webhooks.mode = 'late';
    fake.webhooks.delayMs = 1000;
    try {
      const started = Date.now();
      await createIntent(fake, '4242424242424242');
      assert.equal(receiver.received.length, 0);
      await receiver.waitFor(3);
      assert.ok(Date.now() - started >= 1000, 'late by the delay');
    } finally {
      fake.webhooks.delayMs = 100;
    }
  });

  test('twice: every event arrives two times, with the same id', async () => {
    fake.webhooks.mode = 'twice';
    const pi = (await createIntent(fake, '4242424242424242')).body;
    await fake.webhooks.settled();
    const ids = receiver.received.map((r) => r.event.id);
    assert.equal(ids.length, 6);
    assert.equal(new Set(ids).size, 3);
    assert.deepEqual(typesFor(pi.id), [
      'payment_intent.created',
      'payment_intent.created',
      'payment_intent.succeeded',
      'payment_intent.succeeded',
    ]);
  });

  test('out of order: the events gathered are sent newest first', async () => {
    fake.webhooks.mode = 'out_of_order';
    const pi = (await createIntent(fake, '4242424242424242')).body;
    await fake.webhooks.settled();
    assert.deepEqual(typesFor(pi.id), ['payment_intent.succeeded', 'payment_intent.created']);
  });

  test('never: recorded (GET /v1/events shows them), never sent', async () => {
    fake.webhooks.mode = 'never';
    const pi = (await createIntent(fake, '4242424242424242')).body;
    await fake.webhooks.settled();
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(receiver.received.length, 0);
    const recorded = fake.webhooks.events.filter((e) => (e.data.object as { id: string }).id === pi.id);
    assert.equal(recorded.length, 2);
    assert.ok(
      recorded.every((e) => fake.webhooks.unsent.includes(e.id)),
      'all listed as unsent',
    );
  });

  test('the drop_webhooks fault: that request’s events are never sent, the next ones are', async () => {
    fake.inject('create_intent', 'drop_webhooks');
    const dropped = (await createIntent(fake, '4242424242424242')).body;
    const sent = (await createIntent(fake, '4242424242424242')).body;
    await fake.webhooks.settled();
    assert.deepEqual(typesFor(dropped.id), []);
    assert.deepEqual(typesFor(sent.id), ['payment_intent.created', 'payment_intent.succeeded']);
  });

  test('a non-2xx answer is retried with a fresh signature until the retries run out', async () => {
    receiver.status = 500;
    const pi = (await createIntent(fake, '4242424242424242')).body;
    await fake.webhooks.settled();
    const created = fake.webhooks.events.find((e) => e.type === 'payment_intent.created' && (e.data.object as { id: string }).id === pi.id);
    const attempts = fake.webhooks.deliveries.filter((d) => d.eventId === created?.id);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.status]),
      [
        [1, 500],
        [2, 500],
        [3, 500],
      ],
    );
    for (const r of receiver.received)
      assert.ok(verifyStripeSignature(r.raw, r.headers['stripe-signature'] as string, fake.webhookSecret), 'each attempt is signed');
    receiver.status = 200;
    receiver.received.length = 0;
    receiver.status = 503;
    const next = (await createIntent(fake, '4242424242424242')).body;
    setTimeout(() => {
      receiver.status = 200;
    }, 5);
    await fake.webhooks.settled();
    assert.ok(
      receiver.received.some((r) => r.event.type === 'payment_intent.succeeded' && (r.event.data.object as { id: string }).id === next.id),
      'delivered once the receiver recovered',
    );
  });

  test('with no URL nothing is sent; setting webhooks.url later sends what follows', async () => {
    const quiet = await startFakeAcquirer();
    try {
      await createIntent(quiet, '4242424242424242');
      await quiet.webhooks.settled();
      assert.equal(quiet.webhooks.deliveries.length, 0);
      quiet.webhooks.url = receiver.url;
      await createIntent(quiet, '4242424242424242');
      await quiet.webhooks.settled();
      assert.equal(quiet.webhooks.deliveries.length, 3);
    } finally {
      await quiet.close();
    }
  });
});
