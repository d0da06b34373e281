// @purse/sdk against a real Purse over HTTP (PGlite or PostgreSQL, as the run chooses), through a
// proxy that counts requests and injects faults: 503s, 429 with Retry-After, and connections
// dropped after Purse answered. Every resource once, retries with the same bytes, token renewal
// (before expiry and once on a 401), auto-pagination over several pages, errors, and webhook
// verification of a real delivery.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Purse, PurseError } from '@purse/sdk';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { uniqueRef } from '../helpers/factories.ts';
import { eventually } from '../helpers/processes.ts';
import { startReceiver } from '../webhooks/receiver.ts';

type Fault = '503' | '429' | 'drop-after' | '401';

interface Seen {
  method: string;
  path: string;
  body: string;
  fault: Fault | null;
}

/** A proxy in front of Purse: faults are taken in order by the requests whose path matches. */
async function startProxy(target: string) {
  const seen: Seen[] = [];
  const faults: { match: RegExp; fault: Fault }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const at = faults.findIndex((f) => f.match.test(`${req.method} ${path}`));
      const fault = at >= 0 ? faults.splice(at, 1)[0]!.fault : null;
      seen.push({ method: req.method ?? 'GET', path, body, fault });
      if (fault === '503')
        return res
          .writeHead(503, { 'content-type': 'application/json' })
          .end('{"error":{"type":"api_error","code":"service_unavailable","message":"try again"}}');
      if (fault === '429')
        return res
          .writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' })
          .end('{"error":{"type":"rate_limit_error","code":"rate_limited","message":"slow down"}}');
      if (fault === '401')
        return res
          .writeHead(401, { 'content-type': 'application/json' })
          .end('{"error":{"type":"authentication_error","code":"token_invalid","message":"expired"}}');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v;
      const answer = await fetch(target + path, { method: req.method, headers, ...(body === '' ? {} : { body }) });
      const text = await answer.text();
      // The answer is lost after Purse acted on the request: the client sees a reset connection.
      if (fault === 'drop-after') return req.socket.destroy();
      const out: Record<string, string> = {};
      answer.headers.forEach((v, k) => {
        if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection' && k !== 'keep-alive') out[k] = v;
      });
      res.writeHead(answer.status, out).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    seen,
    inject(match: RegExp, ...list: Fault[]) {
      for (const fault of list) faults.push({ match, fault });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let app: TestApp;
let merchant: TestMerchant;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let purse: Purse;

before(async () => {
  app = await buildTestApp(null, { env: { PURSE_TOKEN_TTL_S: '2' } });
  app.deps.worker.start();
  app.deps.outflowWorker.start();
  app.deps.deliveryWorker.start();
  await app.listen({ port: 0, host: '127.0.0.1' });
  merchant = await createTestMerchant(app, 'SDK merchant');
  proxy = await startProxy(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`);
  purse = new Purse({ baseUrl: proxy.base, clientId: merchant.clientId, clientSecret: merchant.clientSecret, maxRetries: 3 });
});

after(async () => {
  await proxy.close();
  await app.close();
  await app.deps.close();
});

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' };

describe('@purse/sdk', () => {
  test('imports from plain Node ESM after npm install (which builds it)', async () => {
    const { execFileSync } = await import('node:child_process');
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { Purse, PurseError } from '@purse/sdk'; console.log(typeof Purse, typeof PurseError, typeof Purse.webhooks.verify)",
      ],
      {
        cwd: new URL('../../../..', import.meta.url).pathname,
        encoding: 'utf8',
      },
    );
    assert.equal(out.trim(), 'function function function');
  });

  test('every resource once: payments, wallets, top-ups, transfers, refunds, payouts, balance, events, endpoints, sandbox', async () => {
    assert.equal((await purse.merchant.retrieve()).id, merchant.merchantId);
    const wallet = await purse.wallets.create({ currency: 'KES', holder: { name: 'Amina' } });
    const other = await purse.wallets.create({ currency: 'KES', holder: { name: 'Baraka' } });
    const topup = await purse.topups.create({
      reference: uniqueRef(),
      amount: '100.00',
      currency: 'KES',
      wallet_id: wallet.id,
      source: { type: 'card', card },
    });
    assert.equal(topup.status, 'succeeded');
    assert.equal((await purse.topups.retrieve(topup.id)).id, topup.id);
    const pay = await purse.payments.create({
      reference: uniqueRef(),
      amount: '10.00',
      currency: 'KES',
      payment_method: { type: 'wallet', wallet: { wallet_id: wallet.id } },
    });
    assert.equal(pay.status, 'succeeded');
    assert.equal((await purse.payments.retrieve(pay.id)).amount, '10.00');
    const transfer = await purse.transfers.create({
      reference: uniqueRef(),
      amount: '5.00',
      currency: 'KES',
      source_wallet_id: wallet.id,
      destination_wallet_id: other.id,
    });
    assert.equal(transfer.status, 'succeeded');
    assert.equal((await purse.transfers.retrieve(transfer.id)).id, transfer.id);
    const refund = await purse.refunds.create({ reference: uniqueRef(), payment_id: pay.id, amount: '4.00' });
    assert.equal(refund.status, 'succeeded');
    assert.equal((await purse.refunds.retrieve(refund.id)).amount, '4.00');
    const payout = await purse.payouts.create({
      reference: uniqueRef(),
      amount: '1.00',
      currency: 'KES',
      destination: { type: 'wallet', wallet: { wallet_id: other.id } },
    });
    assert.equal(payout.status, 'succeeded');
    assert.equal((await purse.payouts.retrieve(payout.id)).id, payout.id);
    assert.equal((await purse.wallets.retrieve(other.id)).balance, '6.00');
    const lines = [];
    for await (const line of purse.wallets.transactions(wallet.id)) lines.push(line);
    assert.equal(lines.length, 4, 'top-up, payment, transfer out, refund in');
    assert.equal((await purse.wallets.freeze(other.id)).status, 'inactive');
    assert.equal((await purse.wallets.unfreeze(other.id)).status, 'active');
    const balance = await purse.balance.retrieve();
    assert.ok(Array.isArray(balance.available));
    const bt = await purse.balanceTransactions.list({ limit: 2 });
    assert.ok(bt.data.length > 0);
    assert.match(await purse.balanceTransactions.csv(), /^id,/);

    // 005 never settles by itself: only the sandbox control below decides it.
    const mobile = await purse.payments.create({
      reference: uniqueRef(),
      amount: '3.00',
      currency: 'KES',
      payment_method: { type: 'mobile_money', mobile_money: { phone_number: '+254712345005', provider: 'mpesa' } },
    });
    assert.equal(mobile.status, 'pending');
    assert.equal((await purse.sandbox.payments.fail(mobile.id, { failure_code: 'payer_declined' })).status, 'failed');
    // A card held (manual capture): part of it captured; another one canceled.
    const hold = () =>
      purse.payments.create({
        reference: uniqueRef(),
        amount: '20.00',
        currency: 'KES',
        payment_method: { type: 'card', card },
        capture_method: 'manual',
      });
    const held = await hold();
    assert.equal(held.status, 'requires_capture');
    const captured = await purse.payments.capture(held.id, { amount: '15.00' });
    assert.deepEqual([captured.status, captured.amount_received], ['succeeded', '15.00']);
    const canceled = await purse.payments.cancel((await hold()).id, { reason: 'duplicate' });
    assert.deepEqual([canceled.status, canceled.cancellation_reason], ['canceled', 'duplicate']);

    const events = [];
    for await (const e of purse.events.list({ object_id: pay.id })) events.push(e);
    assert.deepEqual(events.map((e) => e.type).sort(), ['payment.created', 'payment.succeeded']);
    assert.equal((await purse.events.retrieve(events[0]!.id)).id, events[0]!.id);
    const endpoint = await purse.webhookEndpoints.create({ url: 'http://127.0.0.1:9/hooks' });
    assert.match(endpoint.secret, /^whsec_/);
    assert.equal((await purse.webhookEndpoints.retrieve(endpoint.id)).id, endpoint.id);
    assert.equal((await purse.webhookEndpoints.update(endpoint.id, { description: 'sdk' })).description, 'sdk');
    assert.notEqual((await purse.webhookEndpoints.rotateSecret(endpoint.id)).secret, endpoint.secret);
    assert.equal((await purse.webhookEndpoints.del(endpoint.id)).deleted, true);
    assert.match((await purse.webhookSecret.retrieve()).secret, /^whsec_/);
  });

  test('errors are PurseError with status, type, code, param and requestId; another merchant reads 404', async () => {
    await assert.rejects(
      purse.payments.create({ reference: uniqueRef(), amount: '1.005', currency: 'KES', payment_method: { type: 'card', card } }),
      (error: unknown) => {
        assert.ok(error instanceof PurseError);
        assert.equal(error.status, 400);
        assert.equal(error.type, 'invalid_request_error');
        assert.equal(error.code, 'parameter_invalid');
        assert.equal(error.param, 'amount');
        assert.match(error.requestId ?? '', /^req_/);
        return true;
      },
    );
    const someone = await createTestMerchant(app, 'Someone else');
    const theirs = new Purse({ baseUrl: proxy.base, clientId: someone.clientId, clientSecret: someone.clientSecret });
    const mine = await purse.payments.create({
      reference: uniqueRef(),
      amount: '1.00',
      currency: 'KES',
      payment_method: { type: 'card', card },
    });
    await assert.rejects(
      theirs.payments.retrieve(mine.id),
      (e: unknown) => e instanceof PurseError && e.status === 404 && e.code === 'resource_not_found',
    );
    const wrong = new Purse({ baseUrl: proxy.base, clientId: merchant.clientId, clientSecret: 'sk_test_wrong' });
    await assert.rejects(
      wrong.balance.retrieve(),
      (e: unknown) => e instanceof PurseError && e.status === 401 && e.code === 'invalid_client',
    );
  });

  test('503, 429 (Retry-After) and an answer lost after Purse acted are retried with the same bytes; one payment', async () => {
    const reference = uniqueRef('retry');
    const from = proxy.seen.length;
    proxy.inject(/^POST \/v1\/payments$/, '503', '429', 'drop-after');
    const started = Date.now();
    const pay = await purse.payments.create({ reference, amount: '2.50', currency: 'KES', payment_method: { type: 'card', card } });
    assert.equal(pay.status, 'succeeded');
    const posts = proxy.seen.slice(from).filter((s) => s.method === 'POST' && s.path === '/v1/payments');
    assert.deepEqual(
      posts.map((s) => s.fault),
      ['503', '429', 'drop-after', null],
    );
    assert.equal(new Set(posts.map((s) => s.body)).size, 1, 'the same body every time');
    assert.ok(Date.now() - started >= 1000, 'Retry-After: 1 was honoured');
    const listed = [];
    for await (const p of purse.payments.list({ reference })) listed.push(p);
    assert.deepEqual(
      listed.map((p) => p.id),
      [pay.id],
      'the dropped answer did not make a second payment',
    );
  });

  test('retries run out: the error of the last attempt; a network failure is a network_error', async () => {
    const strict = new Purse({ baseUrl: proxy.base, clientId: merchant.clientId, clientSecret: merchant.clientSecret, maxRetries: 1 });
    await strict.balance.retrieve();
    proxy.inject(/^GET \/v1\/balance$/, '503', '503');
    await assert.rejects(
      strict.balance.retrieve(),
      (e: unknown) => e instanceof PurseError && e.status === 503 && e.code === 'service_unavailable',
    );
    const nowhere = new Purse({ baseUrl: 'http://127.0.0.1:9', clientId: 'x', clientSecret: 'y', maxRetries: 1 });
    await assert.rejects(
      nowhere.balance.retrieve(),
      (e: unknown) => e instanceof PurseError && e.type === 'network_error' && e.status === null,
    );
  });

  test('the token: fetched once for concurrent calls, renewed before it expires, and once on a 401', async () => {
    const fresh = new Purse({ baseUrl: proxy.base, clientId: merchant.clientId, clientSecret: merchant.clientSecret });
    const tokens = () => proxy.seen.filter((s) => s.path === '/oauth/token').length;
    const before = tokens();
    await Promise.all([fresh.balance.retrieve(), fresh.balance.retrieve(), fresh.merchant.retrieve()]);
    assert.equal(tokens() - before, 1, 'one token for three concurrent calls');
    // PURSE_TOKEN_TTL_S=2: renewed at half its life, before Purse would refuse it.
    await new Promise((r) => setTimeout(r, 1_200));
    const from = proxy.seen.length;
    await fresh.balance.retrieve();
    assert.equal(tokens() - before, 2, 'renewed before expiry');
    assert.ok(!proxy.seen.slice(from).some((s) => s.fault === '401'));
    proxy.inject(/^GET \/v1\/merchant$/, '401');
    assert.equal((await fresh.merchant.retrieve()).id, merchant.merchantId);
    assert.equal(tokens() - before, 3, 'a new token after the 401, and the call succeeded');
    proxy.inject(/^GET \/v1\/merchant$/, '401', '401');
    await assert.rejects(
      fresh.merchant.retrieve(),
      (e: unknown) => e instanceof PurseError && e.status === 401,
      'renewed once, not forever',
    );
  });

  test('for await pages through every item, several pages, fetched as needed', async () => {
    const prefix = uniqueRef('page');
    const wallet = await purse.wallets.create({ currency: 'KES', holder: { name: 'Pages' } });
    await purse.topups.create({
      reference: `${prefix}-top`,
      amount: '100.00',
      currency: 'KES',
      wallet_id: wallet.id,
      source: { type: 'card', card },
    });
    for (let i = 0; i < 23; i++) {
      await purse.payments.create({
        reference: `${prefix}-${i}`,
        amount: '1.00',
        currency: 'KES',
        payment_method: { type: 'wallet', wallet: { wallet_id: wallet.id } },
      });
    }
    const from = proxy.seen.length;
    const ids: string[] = [];
    for await (const line of purse.wallets.transactions(wallet.id, { limit: 5 })) ids.push(line.id);
    assert.equal(ids.length, 24);
    assert.equal(new Set(ids).size, 24, 'no line twice');
    assert.equal(
      proxy.seen.slice(from).filter((s) => s.path.startsWith(`/v1/wallets/${wallet.id}/transactions`)).length,
      5,
      '5 pages of 5',
    );
    const first = await purse.wallets.transactions(wallet.id, { limit: 5 });
    assert.equal(first.data.length, 5);
    assert.equal(first.has_more, true);
  });

  test('Purse.webhooks.verify: a real delivery verifies; a changed byte or another secret throws PurseError', async (t) => {
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const endpoint = await purse.webhookEndpoints.create({ url: `${receiver.base}/hooks`, events: ['payment.succeeded'] });
    const pay = await purse.payments.create({
      reference: uniqueRef(),
      amount: '1.00',
      currency: 'KES',
      payment_method: { type: 'card', card },
    });
    await eventually('delivered', () => receiver.received.some((r) => r.ok));
    const got = receiver.received.find((r) => r.ok)!;
    const event = Purse.webhooks.verify(got.body, got.headers as Record<string, string>, endpoint.secret);
    assert.equal(event.type, 'payment.succeeded');
    assert.equal((event.data as { object: { id: string } }).object.id, pay.id);
    const headers = new Headers(got.headers as Record<string, string>);
    assert.equal(Purse.webhooks.verify(Buffer.from(got.body), headers, endpoint.secret).id, event.id);
    assert.throws(
      () => Purse.webhooks.verify(got.body.replace('1.00', '9.00'), got.headers as Record<string, string>, endpoint.secret),
      (e: unknown) => e instanceof PurseError && e.type === 'webhook_error' && e.code === 'signature_invalid',
    );
    const otherSecret = (await purse.webhookSecret.retrieve()).secret;
    assert.throws(() => Purse.webhooks.verify(got.body, got.headers as Record<string, string>, otherSecret), PurseError);
    await purse.webhookEndpoints.del(endpoint.id);
  });
});
