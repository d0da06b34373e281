// Attempts of a checkout session, made as the hosted page makes them: each a payment through the
// payments' own path, completion from the payment's server-side state only, at most 5 failed
// attempts, one payment however many submissions race, the card-testing limits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/shared/errors.ts';
import { createTestMerchant } from '../helpers/app.ts';
import { runCompletionStorm } from './completion-storm.ts';
import { attempt, card, checkoutApp, eventTypes, expireByTime, mobile, sessionBody, sessionRow } from './support.ts';

const DECLINES = ['4000000000000002', '4000000000009995', '4000000000000069', '4000000000000127', '4000000000000119'];

test('a good card completes the session: paid, its payment named, one checkout_session.completed', async (t) => {
  const { api, app } = await checkoutApp(t);
  const s = (await api.post('/v1/checkout_sessions', sessionBody({ metadata: { order: '9' }, description: 'Nine' }))).body;
  const result = await attempt(app, s.id, card());
  assert.equal(result.ok, true);
  assert.ok(result.ok);
  assert.equal(result.payment.status, 'succeeded');
  const got = (await api.get(`/v1/checkout_sessions/${s.id}`)).body;
  assert.equal(got.status, 'complete');
  assert.equal(got.payment_status, 'paid');
  assert.equal(got.payment_id, result.payment.id);
  assert.ok(got.completed_at);
  const payment = (await api.get(`/v1/payments/${got.payment_id}`)).body;
  assert.equal(payment.reference, `${s.reference}/attempt-1`);
  assert.equal(payment.amount, '10.50');
  assert.equal(payment.description, 'Nine');
  assert.deepEqual(payment.metadata, { order: '9' });
  assert.deepEqual(payment.payment_method.card.last4, '4242');
  assert.deepEqual(await eventTypes(api, s.id), ['checkout_session.completed']);
  const event = (await api.get(`/v1/events?object_id=${s.id}`)).body.data[0];
  assert.equal(event.data.object.payment_id, payment.id);
  assert.equal(event.data.object.payment_status, 'paid');
  // A complete session takes no more attempts, and cannot be expired.
  const more = await attempt(app, s.id, card());
  assert.deepEqual([more.ok, !more.ok && more.refusal], [false, 'closed']);
  const expire = await api.post(`/v1/checkout_sessions/${s.id}/expire`);
  assert.equal(expire.status, 409);
  assert.equal(expire.body.error.code, 'checkout_session_invalid_state');
});

test('five failed attempts expire the session; the sixth is refused; each failure is a payment', async (t) => {
  const { api, app } = await checkoutApp(t);
  const s = (await api.post('/v1/checkout_sessions', sessionBody())).body;
  for (const [i, number] of DECLINES.entries()) {
    const result = await attempt(app, s.id, card(number));
    assert.ok(result.ok, `attempt ${i + 1}`);
    assert.equal(result.payment.status, 'failed');
    assert.equal(result.payment.reference, `${s.reference}/attempt-${i + 1}`);
    assert.equal(result.session.failed_attempts, i + 1);
    assert.equal(result.session.status, i < 4 ? 'open' : 'expired');
  }
  const sixth = await attempt(app, s.id, card());
  assert.deepEqual([sixth.ok, !sixth.ok && sixth.refusal], [false, 'closed']);
  const got = (await api.get(`/v1/checkout_sessions/${s.id}`)).body;
  assert.equal(got.status, 'expired');
  assert.equal(got.payment_id, null);
  assert.deepEqual(await eventTypes(api, s.id), ['checkout_session.expired']);
  const payments = await app.deps.db.db.selectFrom('charges').select('reference').where('reference', 'like', `${s.reference}/%`).execute();
  assert.equal(payments.length, 5);
});

test('concurrent submissions of one session: one payment, one completion, one event', async (t) => {
  const { app, merchant } = await checkoutApp(t);
  const figures = await runCompletionStorm(app, merchant);
  assert.deepEqual([figures.payments, figures.completedEvents, figures.status], [1, 1, 'complete']);
  for (const refusal of figures.refusals) assert.ok(['in_progress', 'closed'].includes(refusal), refusal);
});

test('manual capture: the session completes authorized, and reads paid once captured', async (t) => {
  const { api, app } = await checkoutApp(t);
  const s = (await api.post('/v1/checkout_sessions', sessionBody({ payment_method_types: ['card'], capture_method: 'manual' }))).body;
  const result = await attempt(app, s.id, card());
  assert.ok(result.ok);
  assert.equal(result.payment.status, 'requires_capture');
  assert.equal((await api.get(`/v1/checkout_sessions/${s.id}`)).body.payment_status, 'authorized');
  const captured = await api.post(`/v1/payments/${result.payment.id}/capture`, {});
  assert.equal(captured.body.status, 'succeeded');
  const got = (await api.get(`/v1/checkout_sessions/${s.id}`)).body;
  assert.deepEqual([got.status, got.payment_status], ['complete', 'paid']);
});

test('mobile money: pending, then the session completes from the settled payment; no second attempt meanwhile', async (t) => {
  const { api, app } = await checkoutApp(t);
  app.deps.checkoutWorker.start();
  const s = (await api.post('/v1/checkout_sessions', sessionBody())).body;
  const result = await attempt(app, s.id, mobile('+254712345000'));
  assert.ok(result.ok);
  assert.equal(result.payment.status, 'pending');
  const meanwhile = await attempt(app, s.id, card());
  assert.deepEqual([meanwhile.ok, !meanwhile.ok && meanwhile.refusal], [false, 'in_progress']);
  const expire = await api.post(`/v1/checkout_sessions/${s.id}/expire`);
  assert.equal(expire.status, 409, 'a payment under way decides first');
  const deadline = Date.now() + 5_000;
  let got = (await api.get(`/v1/checkout_sessions/${s.id}`)).body;
  while (got.status === 'open' && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    got = (await api.get(`/v1/checkout_sessions/${s.id}`)).body;
  }
  assert.deepEqual([got.status, got.payment_status, got.payment_id], ['complete', 'paid', result.payment.id]);
  assert.deepEqual(await eventTypes(api, s.id), ['checkout_session.completed']);
});

test('past its expiry a session waits for the payment under way, then follows it', async (t) => {
  const { api, app } = await checkoutApp(t);
  const s = (await api.post('/v1/checkout_sessions', sessionBody())).body;
  const pending = await attempt(app, s.id, mobile('+254712345005'));
  assert.ok(pending.ok);
  await expireByTime(app, s.id);
  assert.equal((await api.get(`/v1/checkout_sessions/${s.id}`)).body.status, 'open');
  await api.post(`/v1/sandbox/payments/${pending.payment.id}/fail`, {});
  assert.equal((await api.get(`/v1/checkout_sessions/${s.id}`)).body.status, 'expired');
  assert.deepEqual(await eventTypes(api, s.id), ['checkout_session.expired']);
});

test('3-D Secure given up: the next card cancels the waiting payment and pays as attempt 2', async (t) => {
  const { api, app } = await checkoutApp(t);
  const s = (await api.post('/v1/checkout_sessions', sessionBody())).body;
  const challenged = await attempt(app, s.id, card('4000000000003220'));
  assert.ok(challenged.ok);
  assert.equal(challenged.payment.status, 'requires_action');
  const returnUrl = (challenged.payment as unknown as { next_action: { redirect_to_url: { return_url: string } } }).next_action
    .redirect_to_url.return_url;
  assert.equal(returnUrl, `${s.url}/return`);
  const next = await attempt(app, s.id, card());
  assert.ok(next.ok);
  assert.equal(next.payment.status, 'succeeded');
  assert.equal(next.payment.reference, `${s.reference}/attempt-2`);
  assert.equal((await api.get(`/v1/payments/${challenged.payment.id}`)).body.status, 'canceled');
  assert.equal((await api.get(`/v1/checkout_sessions/${s.id}`)).body.payment_id, next.payment.id);
});

test('card testing: a card declined 5 times is refused in any session; one address is limited', async (t) => {
  const { api, app } = await checkoutApp(t);
  const declined = '4000000000000002';
  for (let i = 0; i < 5; i++) {
    const s = (await api.post('/v1/checkout_sessions', sessionBody())).body;
    const r = await attempt(app, s.id, card(declined));
    assert.ok(r.ok);
  }
  const fresh = (await api.post('/v1/checkout_sessions', sessionBody())).body;
  const blocked = await attempt(app, fresh.id, card(declined));
  assert.deepEqual([blocked.ok, !blocked.ok && blocked.refusal], [false, 'card_blocked']);
  const refusals = [];
  for (let i = 0; i < 21; i++) {
    const r = await attempt(
      app,
      fresh.id,
      { type: 'card', card: { number: '4242', exp_month: 1, exp_year: 2035, cvc: '1' } },
      '10.99.0.1',
    ).catch((e: unknown) => e);
    refusals.push(r instanceof ApiError ? r.code : (r as { refusal: string }).refusal);
  }
  assert.equal(refusals.at(-1), 'too_many_attempts');
  assert.equal(refusals.filter((r) => r === 'parameter_invalid').length, 20);
});

test('bad card input is refused before anything is stored, and is no failed attempt', async (t) => {
  const { api, app } = await checkoutApp(t);
  const s = (await api.post('/v1/checkout_sessions', sessionBody())).body;
  await assert.rejects(
    attempt(app, s.id, card('4242424242424241')),
    (e: unknown) => e instanceof ApiError && e.code === 'parameter_invalid',
  );
  const row = await sessionRow(app, s.id);
  assert.deepEqual([row.failed_attempts, row.attempt_lease_until], [0, null]);
  const only = await attempt(app, s.id, mobile(), '10.1.1.1');
  assert.ok(only.ok);
  assert.equal(only.payment.reference, `${s.reference}/attempt-1`);
});

test('a live merchant without raw-card permission pays by card through hosted checkout', async (t) => {
  const { app, base } = await checkoutApp(t);
  const live = await createTestMerchant(app, 'Live shop', true);
  const post = (path: string, body: unknown) =>
    fetch(base + path, { method: 'POST', headers: { ...live.auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const direct = await post('/v1/payments', { reference: 'direct-1', amount: '10.00', currency: 'KES', payment_method: card() });
  assert.equal((await direct.json()).error.code, 'raw_card_data_not_allowed');
  const s = await (await post('/v1/checkout_sessions', sessionBody())).json();
  assert.equal(s.livemode, true);
  const result = await attempt(app, s.id, card());
  assert.ok(result.ok, "the raw-card restriction is the API's, not the hosted page's");
  // No acquirer is configured in this test app: the attempt reaches routing and fails there.
  assert.deepEqual([result.payment.status, result.payment.failure?.code], ['failed', 'provider_error']);
});
