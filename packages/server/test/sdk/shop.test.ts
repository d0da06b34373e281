// examples/shop end to end: a real Purse, the example started as a merchant starts it (node
// examples/shop/server.js with credentials in its environment), a card checkout and a mobile-money
// checkout settled by the sandbox, webhooks verified and de-duplicated (a redelivery is counted as a
// duplicate, a forged one refused), and a refund that the shop learns about by webhook.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { eventually, freePort } from '../helpers/processes.ts';

const SHOP = fileURLToPath(new URL('../../../../examples/shop/server.js', import.meta.url));

test('examples/shop: checkout by card and mobile money, verified de-duplicated webhooks, a refund', async (t) => {
  const app = await buildTestApp(t, { env: { PURSE_WEBHOOK_RETRY_SCHEDULE_S: '0.05,0.1' } });
  app.deps.worker.start();
  app.deps.outflowWorker.start();
  app.deps.deliveryWorker.start();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const merchant = await createTestMerchant(app, 'Example shop');
  const port = await freePort();
  const child = spawn(process.execPath, [SHOP], {
    env: {
      PATH: process.env.PATH,
      PURSE_BASE_URL: base,
      PURSE_CLIENT_ID: merchant.clientId,
      PURSE_CLIENT_SECRET: merchant.clientSecret,
      SHOP_PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString();
  });
  t.after(() => {
    if (child.exitCode === null) process.kill(child.pid!, 'SIGKILL');
  });
  await eventually('the shop is listening', () => output.includes('shop: listening'), 60_000);
  const shop = `http://127.0.0.1:${port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(shop + path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const orders = async () =>
    (await call('GET', '/orders')).body as {
      orders: Record<string, string>[];
      webhooks: { received: number; duplicates: number; rejected: number };
    };

  const cardOrder = await call('POST', '/checkout', {
    amount: '25.00',
    method: 'card',
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' },
  });
  assert.equal(cardOrder.status, 201, JSON.stringify(cardOrder.body));
  assert.equal(cardOrder.body.status, 'succeeded');
  const mobileOrder = await call('POST', '/checkout', { amount: '10.00', method: 'mobile_money', phone_number: '+254712345678' });
  assert.equal(mobileOrder.body.status, 'pending');
  await eventually(
    'the mobile-money order paid, learnt by webhook',
    async () => (await orders()).orders.find((o) => o.reference === mobileOrder.body.reference)?.status === 'succeeded',
    60_000,
  );

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
  assert.equal((await orders()).webhooks.rejected, before.rejected + 1);
  process.kill(child.pid!, 'SIGTERM');
});
