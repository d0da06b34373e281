// A small shop on top of Purse, using @purse/sdk: what a merchant's own server does.
//   POST /checkout {amount, method: "card"|"mobile_money", phone_number?, card?}  → an order, paid through Purse
//   POST /hooks                                                                → Purse's webhooks: verified, de-duplicated
//   POST /orders/{reference}/refund {amount?}                                  → a refund of the order's payment
//   GET  /orders                                                               → the orders as the webhooks left them
// Configuration (environment): PURSE_BASE_URL (default http://127.0.0.1:8080), PURSE_CLIENT_ID,
// PURSE_CLIENT_SECRET, SHOP_PORT (default 3000), PURSE_WEBHOOK_SECRET (e.g. the secret `npm run purse --
// listen` prints; else the shop uses an endpoint of its own, http://127.0.0.1:SHOP_PORT/hooks, which a
// sandbox merchant may register on a local Purse: registered once, its secret kept in
// SHOP_DATA_DIR/shop-webhook.json, default ./.data, and reused on every start; see webhook-endpoint.js).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { join } from 'node:path';
import { Purse, PurseError } from '@purse/sdk';
import { ensureWebhookEndpoint } from './webhook-endpoint.js';

const env = process.env;
if (!env.PURSE_CLIENT_ID || !env.PURSE_CLIENT_SECRET) {
  console.error(
    'shop: set PURSE_CLIENT_ID and PURSE_CLIENT_SECRET: the sandbox merchant `npm start` printed on its first start ' +
      '(or, with Purse stopped: npm run purse -- merchant create --name Shop)',
  );
  process.exit(1);
}
const port = Number(env.SHOP_PORT ?? 3000);
const purse = new Purse({
  baseUrl: env.PURSE_BASE_URL ?? 'http://127.0.0.1:8080',
  clientId: env.PURSE_CLIENT_ID,
  clientSecret: env.PURSE_CLIENT_SECRET,
});

/** Orders by reference. A real shop keeps them in its database. */
const orders = new Map();
/** webhook-ids already handled: deliveries are at-least-once. A real shop keeps them in its database. */
const handled = new Set();
const stats = { received: 0, duplicates: 0, rejected: 0, last_rejection: null };

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function checkout(input) {
  const reference = `order-${randomUUID()}`;
  const payment_method =
    input.method === 'mobile_money'
      ? { type: 'mobile_money', mobile_money: { phone_number: input.phone_number } }
      : { type: 'card', card: input.card };
  // The reference makes the SDK's retries safe: a retried create returns the same payment.
  const payment = await purse.payments.create({ reference, amount: input.amount, currency: input.currency ?? 'KES', payment_method });
  const order = { reference, payment_id: payment.id, amount: payment.amount, status: payment.status, refunded: '0' };
  orders.set(reference, order);
  return order;
}

function onEvent(event) {
  const object = event.data.object;
  const order = orders.get(object.reference) ?? [...orders.values()].find((o) => o.payment_id === object.payment_id);
  if (!order) return;
  if (event.type === 'payment.succeeded' || event.type === 'payment.failed') order.status = object.status;
  if (event.type === 'refund.succeeded') order.refunded = (Number(order.refunded) + Number(object.amount)).toFixed(2);
}

async function route(req, res, secret) {
  const url = new URL(req.url ?? '/', 'http://shop');
  if (req.method === 'POST' && url.pathname === '/hooks') {
    const raw = await readBody(req); // verify the exact bytes: never a re-serialised body
    let event;
    try {
      event = Purse.webhooks.verify(raw, req.headers, secret);
    } catch (error) {
      // Say why: a delivery refused here is retried by Purse for days, and the reason is the clue.
      stats.rejected++;
      const reason = error instanceof PurseError ? `${error.code}: ${error.message}` : String(error);
      stats.last_rejection = { webhook_id: req.headers['webhook-id'] ?? null, reason };
      console.error(`shop: rejected webhook ${req.headers['webhook-id'] ?? '(no webhook-id)'}: ${reason}`);
      return send(res, 400, { error: error instanceof PurseError ? error.code : 'invalid', message: reason });
    }
    stats.received++;
    if (handled.has(event.id)) {
      stats.duplicates++;
      return send(res, 200, { duplicate: true });
    }
    handled.add(event.id);
    onEvent(event);
    return send(res, 200, { ok: true });
  }
  if (req.method === 'POST' && url.pathname === '/checkout') return send(res, 201, await checkout(JSON.parse(await readBody(req))));
  const refund = /^\/orders\/([^/]+)\/refund$/.exec(url.pathname);
  if (req.method === 'POST' && refund) {
    const order = orders.get(decodeURIComponent(refund[1]));
    if (!order) return send(res, 404, { error: 'no such order' });
    const body = JSON.parse((await readBody(req)) || '{}');
    const created = await purse.refunds.create({
      reference: `refund-${randomUUID()}`,
      payment_id: order.payment_id,
      ...(body.amount ? { amount: body.amount } : {}),
    });
    return send(res, 201, created);
  }
  if (req.method === 'GET' && url.pathname === '/orders') return send(res, 200, { orders: [...orders.values()], webhooks: stats });
  return send(res, 404, { error: 'not found' });
}

async function main() {
  let secret = env.PURSE_WEBHOOK_SECRET;
  if (secret) console.log('shop: verifying webhooks with PURSE_WEBHOOK_SECRET (no endpoint registered)');
  else {
    const endpoint = await ensureWebhookEndpoint(purse, {
      url: `http://127.0.0.1:${port}/hooks`,
      clientId: env.PURSE_CLIENT_ID,
      file: join(env.SHOP_DATA_DIR || '.data', 'shop-webhook.json'),
      log: (line) => console.log(`shop: ${line}`),
    });
    secret = endpoint.secret;
  }
  const server = http.createServer((req, res) => {
    route(req, res, secret).catch((error) => {
      // Purse's errors carry what a developer needs: code, param, request id.
      if (error instanceof PurseError)
        return send(res, error.status ?? 502, {
          error: error.code,
          param: error.param,
          message: error.message,
          request_id: error.requestId,
        });
      send(res, 500, { error: 'internal' });
    });
  });
  server.listen(port, '127.0.0.1', () => console.log(`shop: listening on http://127.0.0.1:${port}`));
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  console.error(`shop: ${error instanceof PurseError ? `${error.code}: ${error.message}` : error}`);
  process.exit(1);
});
