// examples/shop end to end: a real Purse, the example started as a merchant starts it (node
// examples/shop/server.js with credentials in its environment), a card checkout and a mobile-money
// checkout settled by the sandbox, webhooks verified and de-duplicated (a redelivery is counted as a
// duplicate, a forged one refused, and the refusal says why), and a refund that the shop learns about
// by webhook. Restarted, the shop keeps one webhook endpoint for its URL and every delivery verifies.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { payOnPage } from '../checkout/support.ts';
import { tempDir } from '../cli/support.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { eventually, freePort } from '../helpers/processes.ts';

const SHOP = fileURLToPath(new URL('../../../../examples/shop/server.js', import.meta.url));

interface Shop {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts the example as a merchant would; resolves once it listens. Killed when the test ends. */
async function startShop(t: TestContext, env: Record<string, string>): Promise<Shop> {
  const child = spawn(process.execPath, [SHOP], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
  });
  await eventually('the shop is listening', () => output.includes('shop: listening') || child.exitCode !== null, 60_000);
  assert.equal(child.exitCode, null, `the shop exited:\n${output}`);
  return {
    child,
    output: () => output,
    async stop() {
      process.kill(child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

/** A Purse on a free port with its workers running, and a sandbox merchant. */
async function startPurse(t: TestContext): Promise<{ app: TestApp; base: string; merchant: TestMerchant }> {
  const app = await buildTestApp(t, { env: { PURSE_WEBHOOK_RETRY_SCHEDULE_S: '0.05,0.1' } });
  app.deps.worker.start();
  app.deps.outflowWorker.start();
  app.deps.deliveryWorker.start();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  return { app, base, merchant: await createTestMerchant(app, 'Example shop') };
}

/** On a failure: the payment, its events and their deliveries as Purse shows them. */
async function whatPurseSaw(app: TestApp, merchant: TestMerchant, paymentId: string): Promise<string> {
  const get = async (url: string) => (await app.inject({ method: 'GET', url, headers: merchant.auth })).body;
  const events = JSON.parse(await get(`/v1/events?object_id=${paymentId}`)) as { data?: { id: string }[] };
  const deliveries = await Promise.all((events.data ?? []).map((e) => get(`/v1/events/${e.id}/deliveries`)));
  return [`payment: ${await get(`/v1/payments/${paymentId}`)}`, `events: ${JSON.stringify(events)}`, ...deliveries].join('\n');
}

function shopClient(port: number) {
  const shop = `http://127.0.0.1:${port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(shop + path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const orders = async () =>
    (await call('GET', '/orders')).body as {
      orders: Record<string, string>[];
      webhooks: { received: number; duplicates: number; rejected: number; last_rejection: { webhook_id: string; reason: string } | null };
    };
  return { base: shop, call, orders };
}

test('examples/shop: checkout by card and mobile money, verified de-duplicated webhooks, a refund', async (t) => {
  const { app, base, merchant } = await startPurse(t);
  const port = await freePort();
  const shopProcess = await startShop(t, {
    PURSE_BASE_URL: base,
    PURSE_CLIENT_ID: merchant.clientId,
    PURSE_CLIENT_SECRET: merchant.clientSecret,
    SHOP_PORT: String(port),
    SHOP_DATA_DIR: tempDir(t, 'purse-shop-'),
  });
  const { base: shop, call, orders } = shopClient(port);

  // A card never passes through the shop: it opens a hosted checkout session, the payer pays on Purse's page.
  const refused = await call('POST', '/checkout', { amount: '25.00', method: 'card', card: { number: '4242424242424242' } });
  assert.equal(refused.status, 400);
  const cardOrder = await call('POST', '/checkout', { amount: '25.00', method: 'card' });
  assert.equal(cardOrder.status, 201, JSON.stringify(cardOrder.body));
  // The shop's own mistakes answer 400 with what to send, not 500.
  const notJson = await fetch(`${shop}/checkout`, { method: 'POST', body: "{'amount':'10.00'}" });
  assert.equal(notJson.status, 400);
  assert.match(((await notJson.json()) as { message: string }).message, /not JSON: send e\.g\./);
  const noMethod = await call('POST', '/checkout', { amount: '10.00' });
  assert.equal(noMethod.status, 400, JSON.stringify(noMethod.body));
  assert.match(String(noMethod.body.message), /method must be "card".*or "mobile_money"/);
  assert.equal(cardOrder.body.status, 'open');
  assert.match(cardOrder.body.url, /\/pay\/[A-Za-z0-9_-]{43}$/);
  const paid = await payOnPage(base, cardOrder.body.url, { method: 'card', number: '4242424242424242', expiry: '12/35', cvc: '123' });
  assert.match(paid.html, /Payment received/);
  await eventually(
    'the card order paid, learnt from checkout_session.completed',
    async () => (await orders()).orders.find((o) => o.reference === cardOrder.body.reference)?.status === 'succeeded',
    60_000,
  );
  cardOrder.body.payment_id = (await orders()).orders.find((o) => o.reference === cardOrder.body.reference)?.payment_id;
  const mobileOrder = await call('POST', '/checkout', { amount: '10.00', method: 'mobile_money', phone_number: '+254712345678' });
  // 'succeeded' when the webhook came before the create's answer: the shop records the order first.
  assert.match(mobileOrder.body.status, /^(pending|succeeded)$/);
  await eventually(
    'the mobile-money order paid, learnt by webhook',
    async () => (await orders()).orders.find((o) => o.reference === mobileOrder.body.reference)?.status === 'succeeded',
    60_000,
  ).catch(async (error) => {
    throw new Error(
      `${(error as Error).message}\n${await whatPurseSaw(app, merchant, mobileOrder.body.payment_id)}\nshop:\n${shopProcess.output()}`,
    );
  });

  const refund = await call('POST', `/orders/${cardOrder.body.reference}/refund`, { amount: '5.00' });
  assert.equal(refund.status, 201, JSON.stringify(refund.body));
  await eventually(
    'the refund learnt by webhook',
    async () => (await orders()).orders.find((o) => o.reference === cardOrder.body.reference)?.refunded === '5.00',
    60_000,
  );
  const tooMuch = await call('POST', `/orders/${cardOrder.body.reference}/refund`, { amount: '100.00' });
  assert.equal(tooMuch.status, 400);
  assert.equal(tooMuch.body.error, 'amount_too_large');
  assert.match(tooMuch.body.request_id, /^req_/);

  // A redelivered event is recognised as a duplicate; a forged one is refused.
  const before = (await orders()).webhooks;
  const events = await app.inject({
    method: 'GET',
    url: `/v1/events?object_id=${cardOrder.body.payment_id}&type=payment.succeeded`,
    headers: merchant.auth,
  });
  const eventId = events.json().data[0].id as string;
  await app.inject({ method: 'POST', url: `/v1/events/${eventId}/redeliver`, headers: merchant.auth });
  await eventually('the duplicate counted', async () => (await orders()).webhooks.duplicates > before.duplicates, 60_000);
  const forged = await fetch(`${shop}/hooks`, {
    method: 'POST',
    headers: { 'webhook-id': eventId, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
    body: '{"type":"payment.succeeded"}',
  });
  assert.equal(forged.status, 400);
  const after = (await orders()).webhooks;
  assert.equal(after.rejected, before.rejected + 1);
  // The refusal says why, in the shop's log and in /orders.
  assert.equal(after.last_rejection?.webhook_id, eventId);
  assert.match(after.last_rejection?.reason ?? '', /^signature_invalid: /);
  assert.match(shopProcess.output(), new RegExp(`shop: rejected webhook ${eventId}: signature_invalid: `));
  await shopProcess.stop();
});

test('examples/shop restarted: one webhook endpoint for its URL, its secret kept (mode 0600), every delivery accepted', async (t) => {
  const { app, base, merchant } = await startPurse(t);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/hooks`;
  const dataDir = tempDir(t, 'purse-shop-');
  const file = join(dataDir, 'shop-webhook.json');
  const env = {
    PURSE_BASE_URL: base,
    PURSE_CLIENT_ID: merchant.clientId,
    PURSE_CLIENT_SECRET: merchant.clientSecret,
    SHOP_PORT: String(port),
    SHOP_DATA_DIR: dataDir,
  };
  const endpointsForUrl = async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/webhook_endpoints?limit=100', headers: merchant.auth });
    return (res.json().data as { id: string; url: string; status: string }[]).filter((e) => e.url === url);
  };
  /** A mobile-money order learnt by webhook, then every delivery of the merchant final: all delivered. */
  const payAndSettle = async () => {
    const { call, orders } = shopClient(port);
    const order = await call('POST', '/checkout', { amount: '10.00', method: 'mobile_money', phone_number: '+254712345678' });
    assert.equal(order.status, 201, JSON.stringify(order.body));
    await eventually(
      'the order paid, learnt by webhook',
      async () => (await orders()).orders.find((o) => o.reference === order.body.reference)?.status === 'succeeded',
      60_000,
    );
    const db = app.deps.db.db;
    const deliveries = await eventually(
      "every delivery to the shop's endpoint final",
      async () => {
        const rows = await db.selectFrom('webhook_deliveries').selectAll().where('merchant_id', '=', merchant.merchantId).execute();
        return rows.length > 0 && rows.every((d) => d.status !== 'pending') ? rows : null;
      },
      60_000,
    );
    return { deliveries, webhooks: (await orders()).webhooks };
  };

  const first = await startShop(t, env);
  assert.match(first.output(), /shop: registered webhook endpoint whe_\w+/);
  await first.stop();
  const second = await startShop(t, env);
  await second.stop();
  const third = await startShop(t, env);
  const [endpoint, ...others] = await endpointsForUrl();
  assert.ok(endpoint, 'the shop has an endpoint');
  assert.deepEqual(others, [], 'exactly one endpoint for the URL after two restarts');
  assert.match(third.output(), new RegExp(`shop: reusing webhook endpoint ${endpoint.id} `));
  assert.equal(statSync(file).mode & 0o777, 0o600, 'the secrets file is readable by its owner only');
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(file, 'utf8')).endpoints), [endpoint.id]);
  const run = await payAndSettle();
  assert.ok(run.webhooks.received >= 2, JSON.stringify(run.webhooks));
  assert.equal(run.webhooks.rejected, 0, JSON.stringify(run.webhooks));
  assert.ok(
    run.deliveries.every((d) => d.status === 'delivered'),
    JSON.stringify(run.deliveries.map((d) => [d.status, d.last_error])),
  );
  await third.stop();

  // The secret is lost (the file deleted) and an older shop left a second endpoint for the URL: the
  // shop rotates one endpoint's secret, deletes the other, and every delivery verifies again.
  rmSync(file);
  const stray = await app.inject({ method: 'POST', url: '/v1/webhook_endpoints', headers: merchant.auth, payload: { url } });
  assert.equal(stray.statusCode, 201);
  const fourth = await startShop(t, env);
  assert.match(fourth.output(), new RegExp(`shop: webhook endpoint ${endpoint.id} → ${url} exists but its signing secret is not in`));
  assert.match(fourth.output(), new RegExp(`shop: deleted webhook endpoint ${stray.json().id}`));
  assert.deepEqual(
    (await endpointsForUrl()).map((e) => e.id),
    [endpoint.id],
  );
  const again = await payAndSettle();
  assert.equal(again.webhooks.rejected, 0, JSON.stringify(again.webhooks));
  assert.ok(again.deliveries.every((d) => d.status === 'delivered' || d.endpoint_id === stray.json().id));
  await fourth.stop();
});

test('examples/shop with no Purse at PURSE_BASE_URL: it says where it looked and how to point it elsewhere', async (t) => {
  const closed = await freePort();
  const child = spawn(process.execPath, [SHOP], {
    env: {
      PATH: process.env.PATH,
      PURSE_BASE_URL: `http://127.0.0.1:${closed}`,
      PURSE_CLIENT_ID: 'cli_x',
      PURSE_CLIENT_SECRET: 'sk_test_x',
      SHOP_PORT: String(await freePort()),
      SHOP_DATA_DIR: tempDir(t, 'purse-shop-'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  assert.equal(code, 1, output);
  assert.ok(output.includes(`Purse at http://127.0.0.1:${closed}`), output);
  assert.match(output, /PURSE_BASE_URL=http:\/\/127\.0\.0\.1:PORT npm run shop/);
});
