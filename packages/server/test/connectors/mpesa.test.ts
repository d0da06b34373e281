// The M-Pesa Daraja connector against a faithful fake of Daraja, over real HTTP both ways: Purse
// calls the fake (OAuth, STK Push, STK query, B2C) and the fake calls Purse back by POST on the
// per-object URL Purse gave it. A live merchant with a Kenyan number (254, PURSE_MOBILE_MONEY_ROUTES)
// or provider 'mpesa' goes to the connector. A push is never sent twice for one payment.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { accountReferenceOf, mpesaKeys, originatorIdOf } from '../../src/connectors/mpesa/transformers.ts';
import { type FakeMpesa, fakeMpesaEnv, MPESA_SUFFIXES, startFakeMpesa } from '../fakes/mpesa.ts';
import { buildTestApp, createTestMerchant, TEST_ENV, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { assertLedgerHealthy, get, post, settle as settleAll, uniqueRef, waitFor } from '../helpers/factories.ts';
import { freePort } from '../helpers/processes.ts';
import { usePrivatePostgres } from '../webhooks/support.ts';

// A database of its own on PostgreSQL: another file's worker must not settle this file's provider charges.
const privateDatabase = usePrivatePostgres();

let fake: FakeMpesa;
let app: TestApp;
let merchant: TestMerchant;
let originatorKey: Buffer;

before(async () => {
  await privateDatabase();
  fake = await startFakeMpesa({ settleDelayMs: 50 });
  const port = await freePort();
  app = await buildTestApp(null, {
    env: { ...fakeMpesaEnv(fake, `http://127.0.0.1:${port}`), PURSE_WORKER: 'false', PURSE_MOBILE_MONEY_EXPIRY_S: '600' },
  });
  await app.listen({ port, host: '127.0.0.1' });
  merchant = await createTestMerchant(app, 'M-Pesa merchant', true);
  originatorKey = mpesaKeys(app.deps.hashKey).originator;
});

after(async () => {
  await app.close();
  await app.deps.close();
  await fake.close();
});

const phone = (suffix: string) => `+2547${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}${suffix}`;

async function pay(suffix: string = MPESA_SUFFIXES.success, amount = '100.00', named = true) {
  const res = await post(app, merchant, '/v1/payments', {
    reference: uniqueRef('mpesa'),
    amount,
    currency: 'KES',
    payment_method: { type: 'mobile_money', mobile_money: { phone_number: phone(suffix), ...(named ? { provider: 'mpesa' } : {}) } },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; status: string; provider_reference: string | null; failure: { code: string } | null };
}

interface Settled {
  status: string;
  provider_reference: string | null;
  failure: { code: string } | null;
}

const settle = async (path: string, timeoutMs = 20_000) => (await settleAll(app, merchant, path, timeoutMs)) as unknown as Settled;
const status = async (path: string) => (await get(app, merchant, path)).json();
const pushesOf = (id: string) => fake.pushesFor(accountReferenceOf(id));
const pushOf = (id: string) => fake.pushes.find((p) => p.body.AccountReference === accountReferenceOf(id));

describe('M-Pesa Daraja over real HTTP to the fake', () => {
  test('a payment is one STK push with the documented body, pending, then succeeded by the callback', async () => {
    const payment = await pay();
    assert.equal(payment.status, 'pending');
    assert.match(String(payment.provider_reference), /^ws_CO_/);
    const sent = pushOf(payment.id);
    assert.ok(sent);
    assert.equal(sent.body.Amount, 100, 'an integer of shillings');
    assert.match(String(sent.body.PhoneNumber), /^2547\d{8}$/);
    assert.equal(sent.body.PartyA, sent.body.PhoneNumber);
    assert.match(String(sent.body.Timestamp), /^\d{14}$/);
    assert.ok(String(sent.body.AccountReference).length <= 12 && String(sent.body.TransactionDesc).length <= 13);
    await waitFor(async () => (await status(`/v1/payments/${payment.id}`)).status === 'succeeded', 5_000);
    assert.equal(pushesOf(payment.id), 1);
  });

  test('without the callback, the worker settles it through the STK query ("being processed" while open)', async () => {
    fake.faults.callbacks = 'never';
    try {
      const payment = await pay();
      const settled = await settle(`/v1/payments/${payment.id}`);
      assert.equal(settled.status, 'succeeded');
      assert.equal(pushesOf(payment.id), 1, 'never pushed twice');
    } finally {
      fake.faults.callbacks = 'once';
    }
  });

  test('a Kenyan number without a named provider routes to M-Pesa (254:mpesa)', async () => {
    const payment = await pay(MPESA_SUFFIXES.success, '5.00', false);
    assert.ok(pushOf(payment.id), 'sent to Daraja');
  });

  test('result codes are mapped: 1 → insufficient_funds, 1032 → payer_declined, 1037 → expired', async () => {
    fake.faults.callbacks = 'never';
    try {
      const cases = [
        [MPESA_SUFFIXES.insufficientFunds, 'insufficient_funds'],
        [MPESA_SUFFIXES.cancelled, 'payer_declined'],
        [MPESA_SUFFIXES.unreachable, 'expired'],
      ] as const;
      for (const [suffix, code] of cases) {
        const payment = await pay(suffix);
        const settled = await settle(`/v1/payments/${payment.id}`);
        assert.deepEqual([settled.status, settled.failure?.code], ['failed', code], `${suffix} ${JSON.stringify(settled)}`);
      }
    } finally {
      fake.faults.callbacks = 'once';
    }
  });

  test('cents or another currency: failed at once, nothing sent', async () => {
    const res = await post(app, merchant, '/v1/payments', {
      reference: uniqueRef('mpesa'),
      amount: '10.50',
      currency: 'KES',
      payment_method: { type: 'mobile_money', mobile_money: { phone_number: phone('000'), provider: 'mpesa' } },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual([res.json().status, res.json().failure.code], ['failed', 'provider_error']);
    assert.equal(pushesOf(res.json().id), 0);
  });

  test('the answer to a push lost after Daraja acted: never pushed again; its callback names it, the query confirms', async () => {
    fake.faults.loseAnswers = 1;
    const payment = await pay();
    assert.equal(payment.status, 'pending');
    assert.equal(payment.provider_reference, null, 'no CheckoutRequestID came back');
    // The worker runs meanwhile: it must not push again.
    app.deps.worker.start();
    try {
      const settled = await waitFor(async () => {
        const view = await status(`/v1/payments/${payment.id}`);
        return view.status !== 'pending' ? view : null;
      }, 10_000);
      assert.equal(settled.status, 'succeeded');
      assert.equal(settled.provider_reference, pushOf(payment.id)?.checkoutRequestId, 'learned from the callback');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(pushesOf(payment.id), 1, 'exactly one STK push: the customer was prompted once');
    } finally {
      await app.deps.worker.stop();
    }
  });

  test('a lost answer and no callback: the payment stays pending, never pushed again, and fails as expired at its expiry', async () => {
    fake.faults.loseAnswers = 1;
    fake.faults.callbacks = 'never';
    try {
      const payment = await pay();
      for (let i = 0; i < 3; i++) {
        const row = await app.deps.db.db.selectFrom('charges').selectAll().where('id', '=', payment.id).executeTakeFirstOrThrow();
        await app.deps.settlement.resume(row, null);
      }
      assert.equal((await status(`/v1/payments/${payment.id}`)).status, 'pending');
      assert.equal(pushesOf(payment.id), 1);
      // At the expiry, the worker fails it (a late success would be kept as late_outcome).
      await app.deps.db.db
        .updateTable('charges')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('id', '=', payment.id)
        .execute();
      const row = await app.deps.db.db.selectFrom('charges').selectAll().where('id', '=', payment.id).executeTakeFirstOrThrow();
      await app.deps.settlement.resume(row, null);
      const view = await status(`/v1/payments/${payment.id}`);
      assert.deepEqual([view.status, view.failure?.code], ['failed', 'expired']);
      assert.equal(pushesOf(payment.id), 1);
      // Reconcile cannot ask Daraja about it (no CheckoutRequestID ever came): it says so, and
      // calls it neither agreement nor a mismatch. A push refused at once is not listed at all.
      const refused = await pay('000', '100.50');
      assert.equal(refused.status, 'failed');
      const report = await app.deps.services.reconciliation.run('mpesa', new Date(Date.now() - 60_000));
      assert.deepEqual(
        report.unverifiable.filter((u) => u.id === payment.id || u.id === refused.id),
        [{ object: 'payment', id: payment.id, status: 'failed' }],
      );
      assert.deepEqual(
        report.mismatches.filter((m) => m.id === payment.id || m.id === refused.id),
        [],
      );
    } finally {
      fake.faults.callbacks = 'once';
    }
  });

  test("forged callbacks (no token, a wrong one, another object's) are 401 and change nothing; a true URL with a false claim changes nothing", async () => {
    fake.faults.callbacks = 'never';
    try {
      const payment = await pay(MPESA_SUFFIXES.neverSettles);
      const other = await pay(MPESA_SUFFIXES.neverSettles);
      const body = JSON.stringify({
        Body: { stkCallback: { CheckoutRequestID: payment.provider_reference, ResultCode: 0, ResultDesc: 'ok' } },
      });
      const otherUrl = new URL(String(pushOf(other.id)?.body.CallBackURL));
      for (const query of [
        '',
        `?id=${payment.id}`,
        `?id=${payment.id}&t=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
        `?id=${payment.id}&t=${otherUrl.searchParams.get('t')}`,
      ]) {
        const res = await app.inject({
          method: 'POST',
          url: `/provider-callbacks/mpesa${query}`,
          headers: { 'content-type': 'application/json' },
          payload: body,
        });
        assert.equal(res.statusCode, 401, `${query}: ${res.body}`);
      }
      const url = new URL(String(pushOf(payment.id)?.body.CallBackURL));
      const res = await app.inject({
        method: 'POST',
        url: `${url.pathname}${url.search}`,
        headers: { 'content-type': 'application/json' },
        payload: body,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await status(`/v1/payments/${payment.id}`)).status, 'pending', 'Daraja says it is being processed');
    } finally {
      fake.faults.callbacks = 'once';
    }
  });

  test('callbacks sent twice, and callbacks contradicting the query: the query wins, once', async () => {
    fake.faults.callbacks = 'twice';
    fake.faults.contradictingCallbacks = true;
    try {
      const payment = await pay();
      const url = String(pushOf(payment.id)?.body.CallBackURL);
      await waitFor(async () => fake.callbacksSent.filter((c) => c.url === url).length === 2, 5_000);
      const view = await status(`/v1/payments/${payment.id}`);
      assert.equal(view.status, 'succeeded', 'the callback claimed 1032, the query says 0');
      const events = await app.deps.db.db.selectFrom('events').select('type').where('object_id', '=', payment.id).execute();
      assert.equal(events.filter((e) => e.type === 'payment.succeeded').length, 1);
    } finally {
      fake.faults.callbacks = 'once';
      fake.faults.contradictingCallbacks = false;
    }
  });

  test('a token expired mid-run: Purse takes a new one (expires_in is a string) and goes on', async () => {
    await pay();
    const issued = fake.tokensIssued;
    fake.expireTokens();
    const payment = await pay();
    assert.equal(payment.status, 'pending');
    assert.ok(fake.tokensIssued > issued);
    await waitFor(async () => (await status(`/v1/payments/${payment.id}`)).status === 'succeeded', 5_000);
  });

  test('Daraja down (500s): the payment stays pending with no push made, and is failed only at expiry', async () => {
    fake.faults.errors500 = 1;
    const payment = await pay();
    assert.equal(payment.status, 'pending');
    assert.equal(pushesOf(payment.id), 0, 'the 500 came before Daraja acted');
  });

  test('a payout and a refund go out by B2C, once each, settled by the Result', async () => {
    const payment = await pay(MPESA_SUFFIXES.success, '1000.00');
    await waitFor(async () => (await status(`/v1/payments/${payment.id}`)).status === 'succeeded', 5_000);
    const payout = await post(app, merchant, '/v1/payouts', {
      reference: uniqueRef('mpesa-po'),
      amount: '200.00',
      currency: 'KES',
      destination: { type: 'mobile_money', mobile_money: { phone_number: phone(MPESA_SUFFIXES.success), provider: 'mpesa' } },
    });
    assert.equal(payout.statusCode, 201, payout.body);
    assert.equal(payout.json().status, 'pending');
    const originator = originatorIdOf(originatorKey, payout.json().id);
    const paid = fake.b2cPaid.find((b) => b.originatorConversationId === originator);
    assert.ok(paid);
    assert.equal(paid.body.Amount, 200);
    await waitFor(async () => (await status(`/v1/payouts/${payout.json().id}`)).status === 'succeeded', 5_000);

    const refund = await post(app, merchant, '/v1/refunds', { reference: uniqueRef('mpesa-re'), payment_id: payment.id, amount: '100.00' });
    assert.equal(refund.statusCode, 201, refund.body);
    const refundOriginator = originatorIdOf(originatorKey, refund.json().id);
    const refunded = fake.b2cPaid.find((b) => b.originatorConversationId === refundOriginator);
    assert.equal(refunded?.body.PartyB, pushOf(payment.id)?.body.PhoneNumber, 'back to the payer');
    await waitFor(async () => (await status(`/v1/refunds/${refund.json().id}`)).status === 'succeeded', 5_000);
    assert.equal(fake.b2cRequestsFor(originator) + fake.b2cRequestsFor(refundOriginator), 2);
    await assertLedgerHealthy(app);
  });

  test('a B2C answer lost after Daraja paid: sent again with the same OriginatorConversationID, refused as a duplicate, paid once; the Result settles it; an unregistered payee fails', async () => {
    const payment = await pay(MPESA_SUFFIXES.success, '1000.00');
    await waitFor(async () => (await status(`/v1/payments/${payment.id}`)).status === 'succeeded', 5_000);
    fake.faults.loseAnswers = 1;
    const payout = await post(app, merchant, '/v1/payouts', {
      reference: uniqueRef('mpesa-po'),
      amount: '50.00',
      currency: 'KES',
      destination: { type: 'mobile_money', mobile_money: { phone_number: phone(MPESA_SUFFIXES.success), provider: 'mpesa' } },
    });
    assert.equal(payout.statusCode, 201, payout.body);
    const id = payout.json().id as string;
    const row = await app.deps.db.db.selectFrom('outflows').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    await app.deps.outflowSettlement.resume(row);
    await waitFor(async () => (await status(`/v1/payouts/${id}`)).status === 'succeeded', 5_000);
    const originator = originatorIdOf(originatorKey, id);
    assert.equal(fake.b2cRequestsFor(originator), 2, 'asked again after the lost answer');
    assert.equal(fake.b2cPaid.filter((b) => b.originatorConversationId === originator).length, 1, 'paid once');

    const unregistered = await post(app, merchant, '/v1/payouts', {
      reference: uniqueRef('mpesa-po'),
      amount: '50.00',
      currency: 'KES',
      destination: { type: 'mobile_money', mobile_money: { phone_number: phone(MPESA_SUFFIXES.payeeNotRegistered), provider: 'mpesa' } },
    });
    const failed = await waitFor(async () => {
      const view = await status(`/v1/payouts/${unregistered.json().id}`);
      return view.status !== 'pending' ? view : null;
    }, 5_000);
    assert.deepEqual([failed.status, failed.failure?.code], ['failed', 'payee_not_found']);
    await assertLedgerHealthy(app);
  });

  test('a B2C Result for another request (wrong OriginatorConversationID) is refused and changes nothing', async () => {
    fake.faults.callbacks = 'never';
    try {
      const payment = await pay(MPESA_SUFFIXES.success, '500.00');
      await waitFor(async () => (await settle(`/v1/payments/${payment.id}`)).status === 'succeeded', 20_000);
      const payout = await post(app, merchant, '/v1/payouts', {
        reference: uniqueRef('mpesa-po'),
        amount: '20.00',
        currency: 'KES',
        destination: { type: 'mobile_money', mobile_money: { phone_number: phone(MPESA_SUFFIXES.success), provider: 'mpesa' } },
      });
      const id = payout.json().id as string;
      const paid = fake.b2cPaid.find((b) => b.originatorConversationId === originatorIdOf(originatorKey, id));
      const url = new URL(String(paid?.body.ResultURL));
      const res = await app.inject({
        method: 'POST',
        url: `${url.pathname}${url.search}`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({
          Result: { ResultCode: 0, OriginatorConversationID: 'purse-000000000000000000000000', TransactionID: 'X' },
        }),
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal((await status(`/v1/payouts/${id}`)).status, 'pending');
    } finally {
      fake.faults.callbacks = 'once';
    }
  });

  test('credentials never appear in the answers Purse gives', async () => {
    const res = await get(app, merchant, '/v1/payments?limit=100');
    for (const secret of [fake.consumerSecret, fake.passkey, fake.securityCredential]) assert.ok(!res.body.includes(secret));
  });
});

describe('M-Pesa configuration', () => {
  test('all variables absent: off; some but not all: refused, naming the missing ones and no value', () => {
    assert.equal(loadConfig({ ...TEST_ENV }).mpesa, null);
    const env = fakeMpesaEnv(fake, 'http://127.0.0.1:1');
    const { PURSE_MPESA_PASSKEY: _passkey, ...partial } = env;
    assert.throws(
      () => loadConfig({ ...TEST_ENV, ...partial }),
      (error: Error) => error.message.includes('PURSE_MPESA_PASSKEY') && !error.message.includes(fake.consumerSecret),
    );
    assert.equal(loadConfig({ ...TEST_ENV, ...env }).mpesa?.shortcode, fake.shortcode);
  });
});
