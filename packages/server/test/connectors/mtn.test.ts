// The MTN MoMo connector against a faithful fake of the Open API, over real HTTP both ways: Purse
// calls the fake (tokens, requesttopay, transfer, status) and the fake calls Purse back with PUT
// on the URL Purse gave it. A live merchant names provider 'mtn', which routes to the connector.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { mtnKeys, referenceIdOf } from '../../src/connectors/mtn/transformers.ts';
import { type FakeMtn, fakeMtnEnv, MTN_SUFFIXES, startFakeMtn } from '../fakes/mtn.ts';
import { buildTestApp, createTestMerchant, TEST_ENV, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { assertLedgerHealthy, get, post, settle as settleAll, uniqueRef, waitFor } from '../helpers/factories.ts';
import { usePrivatePostgres } from '../webhooks/support.ts';

// A database of its own on PostgreSQL: another file's worker must not settle this file's provider charges.
const privateDatabase = usePrivatePostgres();

let fake: FakeMtn;
let app: TestApp;
let merchant: TestMerchant;
let referenceKey: Buffer;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

before(async () => {
  await privateDatabase();
  fake = await startFakeMtn({ settleDelayMs: 50 });
  const port = await freePort();
  app = await buildTestApp(null, { env: { ...fakeMtnEnv(fake, `http://127.0.0.1:${port}`), PURSE_WORKER: 'false' } });
  await app.listen({ port, host: '127.0.0.1' });
  merchant = await createTestMerchant(app, 'MTN merchant', true);
  referenceKey = mtnKeys(app.deps.hashKey).reference;
});

after(async () => {
  await app.close();
  await app.deps.close();
  await fake.close();
});

const phone = (suffix: string) => `+25677${String(Math.floor(Math.random() * 1e4)).padStart(4, '0')}${suffix}`;
const mtnMethod = (suffix: string = MTN_SUFFIXES.success) => ({
  type: 'mobile_money',
  mobile_money: { phone_number: phone(suffix), provider: 'mtn' },
});

async function pay(suffix: string = MTN_SUFFIXES.success, amount = '25.00') {
  const res = await post(app, merchant, '/v1/payments', {
    reference: uniqueRef('mtn'),
    amount,
    currency: 'EUR',
    payment_method: mtnMethod(suffix),
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; status: string; provider_reference: string | null };
}

interface Settled {
  status: string;
  provider_reference: string | null;
  failure: { code: string } | null;
}

/** Runs the workers until the object leaves pending (MTN's pending status is asked again after 5 s). */
async function settle(_app: TestApp, _merchant: TestMerchant, path: string, timeoutMs = 20_000): Promise<Settled> {
  return (await settleAll(app, merchant, path, timeoutMs)) as unknown as Settled;
}

async function status(path: string) {
  return (await get(app, merchant, path)).json();
}

describe('MTN MoMo over real HTTP to the fake', () => {
  test('a payment is one requesttopay, pending, then succeeded through the worker', async () => {
    const payment = await pay();
    assert.equal(payment.status, 'pending');
    const ref = referenceIdOf(referenceKey, payment.id);
    assert.equal(fake.createRequests(ref), 1);
    const sent = fake.byExternalId(payment.id);
    assert.ok(sent);
    assert.deepEqual(sent.body.payer, { partyIdType: 'MSISDN', partyId: (sent.body.payer as { partyId: string }).partyId });
    assert.equal(sent.body.amount, '25.00');
    assert.equal(sent.body.currency, 'EUR');
    const settled = await settle(app, merchant, `/v1/payments/${payment.id}`);
    assert.equal(settled.status, 'succeeded');
    assert.equal(settled.provider_reference, sent.financialTransactionId);
    assert.equal(fake.createRequests(ref), 1, 'never sent twice');
  });

  test('the callback (PUT, token in the URL) settles it without the worker', async () => {
    const payment = await pay();
    await waitFor(async () => (await status(`/v1/payments/${payment.id}`)).status === 'succeeded', 5_000);
    const callbacks = fake.callbacksSent.filter((c) => c.url.includes('/provider-callbacks/mtn?t='));
    assert.ok(
      callbacks.some((c) => c.status === 200),
      JSON.stringify(callbacks),
    );
  });

  test('a Ugandan number without a named provider routes to MTN (PURSE_MOBILE_MONEY_ROUTES default 256:mtn)', async () => {
    const res = await post(app, merchant, '/v1/payments', {
      reference: uniqueRef('mtn'),
      amount: '3.00',
      currency: 'EUR',
      payment_method: { type: 'mobile_money', mobile_money: { phone_number: phone(MTN_SUFFIXES.success) } },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.ok(fake.byExternalId(res.json().id), 'sent to MTN');
    assert.equal((await settle(app, merchant, `/v1/payments/${res.json().id}`)).status, 'succeeded');
  });

  test('a failure reason is mapped (NOT_ENOUGH_FUNDS → insufficient_funds, PAYER_NOT_FOUND → payer_not_found)', async () => {
    const poor = await pay(MTN_SUFFIXES.notEnoughFunds);
    const missing = await pay(MTN_SUFFIXES.payerNotFound);
    const a = await settle(app, merchant, `/v1/payments/${poor.id}`);
    const b = await settle(app, merchant, `/v1/payments/${missing.id}`);
    assert.equal(a.status, 'failed');
    assert.equal(a.failure?.code, 'insufficient_funds');
    assert.equal(b.failure?.code, 'payer_not_found');
  });

  test('an answer lost after MTN acted: still exactly one requesttopay, settled through the status call', async () => {
    fake.faults.loseAnswers = 1;
    const payment = await pay();
    assert.equal(payment.status, 'pending');
    const ref = referenceIdOf(referenceKey, payment.id);
    // The charge's next check is a couple of seconds away after an unknown outcome.
    const settled = await settle(app, merchant, `/v1/payments/${payment.id}`);
    assert.equal(settled.status, 'succeeded');
    assert.equal(fake.createRequests(ref), 1, 'exactly one requesttopay');
  });

  test('a forged callback (wrong or missing token) is 401 and changes nothing', async () => {
    const payment = await pay(MTN_SUFFIXES.neverSettles);
    const body = JSON.stringify({ externalId: payment.id, status: 'SUCCESSFUL', financialTransactionId: '1' });
    const other = await pay(MTN_SUFFIXES.neverSettles);
    const otherToken = new URL(fake.byExternalId(other.id)?.callbackUrl as string).searchParams.get('t');
    for (const query of ['', '?t=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', `?t=${otherToken}`]) {
      for (const method of ['PUT', 'POST'] as const) {
        const res = await app.inject({
          method,
          url: `/provider-callbacks/mtn${query}`,
          headers: { 'content-type': 'application/json' },
          payload: body,
        });
        assert.equal(res.statusCode, 401, `${method} ${query}: ${res.body}`);
      }
    }
    assert.equal((await status(`/v1/payments/${payment.id}`)).status, 'pending');
    // The right token on a body claiming success: Purse asks MTN, which says pending: nothing changes.
    const url = new URL(fake.byExternalId(payment.id)?.callbackUrl as string);
    const res = await app.inject({
      method: 'PUT',
      url: `${url.pathname}${url.search}`,
      headers: { 'content-type': 'application/json' },
      payload: body,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await status(`/v1/payments/${payment.id}`)).status, 'pending');
  });

  test('a token revoked mid-run: Purse takes a new one and goes on', async () => {
    await pay();
    const issued = fake.tokensIssued;
    fake.expireTokens();
    const payment = await pay();
    assert.equal(payment.status, 'pending', 'no failure');
    assert.ok(fake.tokensIssued > issued, 're-tokened');
    assert.equal((await settle(app, merchant, `/v1/payments/${payment.id}`)).status, 'succeeded');
  });

  test('a 500 from MTN leaves the payment pending; it settles later', async () => {
    fake.faults.errors500 = 1;
    const payment = await pay();
    assert.equal(payment.status, 'pending');
    assert.equal((await settle(app, merchant, `/v1/payments/${payment.id}`)).status, 'succeeded');
  });

  test('callbacks sent twice change nothing the second time', async () => {
    fake.faults.callbacks = 'twice';
    try {
      const payment = await pay();
      await waitFor(async () => fake.callbacksSent.filter((c) => c.url === fake.byExternalId(payment.id)?.callbackUrl).length === 2, 5_000);
      const sent = fake.callbacksSent.filter((c) => c.url === fake.byExternalId(payment.id)?.callbackUrl);
      assert.deepEqual(
        sent.map((c) => c.status),
        [200, 200],
      );
      const events = await app.deps.db.db.selectFrom('events').select('type').where('object_id', '=', payment.id).execute();
      assert.equal(events.filter((e) => e.type === 'payment.succeeded').length, 1);
    } finally {
      fake.faults.callbacks = 'once';
    }
  });

  test('a payout to MTN mobile money goes through Disbursement; a refund of an MTN payment too', async () => {
    fake.faults.callbacks = 'never';
    try {
      const payment = await pay(MTN_SUFFIXES.success, '100.00');
      assert.equal((await settle(app, merchant, `/v1/payments/${payment.id}`)).status, 'succeeded');
      const payout = await post(app, merchant, '/v1/payouts', {
        reference: uniqueRef('mtn-po'),
        amount: '10.00',
        currency: 'EUR',
        destination: { type: 'mobile_money', mobile_money: { phone_number: phone(MTN_SUFFIXES.success), provider: 'mtn' } },
      });
      assert.equal(payout.statusCode, 201, payout.body);
      assert.equal(payout.json().status, 'pending');
      const sentOut = fake.byExternalId(payout.json().id);
      assert.equal(sentOut?.product, 'disbursement');
      assert.equal(sentOut?.body.amount, '10.00');
      assert.equal((await settle(app, merchant, `/v1/payouts/${payout.json().id}`)).status, 'succeeded');

      const refund = await post(app, merchant, '/v1/refunds', { reference: uniqueRef('mtn-re'), payment_id: payment.id, amount: '5.00' });
      assert.equal(refund.statusCode, 201, refund.body);
      const refunded = fake.byExternalId(refund.json().id);
      assert.equal(refunded?.product, 'disbursement');
      assert.deepEqual(refunded?.body.payee, fake.byExternalId(payment.id)?.body.payer, 'back to the payer');
      const settledRefund = await settle(app, merchant, `/v1/refunds/${refund.json().id}`);
      assert.equal(settledRefund.status, 'succeeded', JSON.stringify(settledRefund));
      await assertLedgerHealthy(app);
    } finally {
      fake.faults.callbacks = 'once';
    }
  });

  test('credentials never appear in the answers Purse gives', async () => {
    const res = await get(app, merchant, '/v1/payments?limit=100');
    for (const secret of [fake.collection.apiKey, fake.disbursement.apiKey, fake.collection.subscriptionKey]) {
      assert.ok(!res.body.includes(secret));
    }
  });
});

describe('MTN configuration', () => {
  test('all variables absent: MTN is off; some but not all: refused, naming the missing ones and no value', () => {
    assert.equal(loadConfig({ ...TEST_ENV }).mtn, null);
    const env = fakeMtnEnv(fake, 'http://127.0.0.1:1');
    const { PURSE_MTN_COLLECTION_API_KEY: _key, PURSE_PUBLIC_URL: _url, ...partial } = env;
    assert.throws(
      () => loadConfig({ ...TEST_ENV, ...partial }),
      (error: Error) =>
        error.message.includes('PURSE_MTN_COLLECTION_API_KEY') &&
        error.message.includes('PURSE_PUBLIC_URL') &&
        !error.message.includes(fake.collection.subscriptionKey) &&
        !error.message.includes(fake.collection.apiUser),
    );
    assert.equal(loadConfig({ ...TEST_ENV, ...env }).mtn?.targetEnvironment, 'sandbox');
  });
});
