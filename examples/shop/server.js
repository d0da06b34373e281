// A small shop on top of Purse, using @purse/sdk: what a merchant's own server does.
//   POST /checkout {amount, method: "card"|"mobile_money", phone_number?}  → an order, paid through Purse: by card on
//        Purse's hosted checkout page (the answer's `url`: send the payer there; no card number passes through the
//        shop), by mobile money directly
//   GET  /orders/{reference}/paid, /orders/{reference}/cancelled               → where the payer's browser comes back
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
const shopUrl = `http://127.0.0.1:${port}`;
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

/** The shop's own input: a 400 that says what to send (Purse checks the rest and says what is wrong). */
class BadRequest extends Error {}

function readJson(text) {
  try {
    return JSON.parse(text || '{}');
  } catch {
    throw new BadRequest('the body is not JSON: send e.g. {"amount":"10.00","method":"mobile_money","phone_number":"+254712345678"}');
  }
}

async function checkout(input) {
  if (input.method !== 'card' && input.method !== 'mobile_money')
    throw new BadRequest('method must be "card" (paid on Purse\'s hosted page) or "mobile_money" (with a phone_number)');
  const reference = `order-${randomUUID()}`;
  const currency = input.currency ?? 'KES';
  if (input.card) throw new BadRequest('Cards are paid on Purse\'s hosted page: send method "card" without card details.');
  if (input.method !== 'mobile_money') {
    // Hosted checkout: the payer types the card on Purse's page; the shop never sees it. The
    // order is paid when the webhook says so (checkout_session.completed), not when the browser
    // comes back to success_url.
    const session = await purse.checkoutSessions.create({
      reference,
      amount: input.amount,
      currency,
      payment_method_types: ['card'],
      success_url: `${shopUrl}/orders/${reference}/paid`,
      cancel_url: `${shopUrl}/orders/${reference}/cancelled`,
    });
    const order = {
      reference,
      checkout_session_id: session.id,
      url: session.url,
      payment_id: null,
      amount: session.amount,
      status: 'open',
      refunded: '0',
    };
    orders.set(reference, order);
    return order;
  }
  const payment_method = { type: 'mobile_money', mobile_money: { phone_number: input.phone_number } };
  // The order exists before Purse is asked: its webhook can arrive before the create's answer (after
  // a retried create, say), and finds the order by its reference.
  const order = { reference, payment_id: null, amount: input.amount, status: 'creating', refunded: '0' };
  orders.set(reference, order);
  try {
    // The reference makes the SDK's retries safe: a retried create returns the same payment.
    const payment = await purse.payments.create({ reference, amount: input.amount, currency, payment_method });
    Object.assign(order, { payment_id: payment.id, amount: payment.amount });
    if (order.status === 'creating') order.status = payment.status;
  } catch (error) {
    // Refused (a 4xx): there is no payment. Unknown (network, 5xx): the reference finds it later.
    if (error instanceof PurseError && error.status !== null && error.status < 500) orders.delete(reference);
    throw error;
  }
  return order;
}

function onEvent(event) {
  const object = event.data.object;
  const order =
    orders.get(object.reference) ??
    [...orders.values()].find((o) => o.payment_id && (o.payment_id === object.payment_id || o.payment_id === object.id));
  if (!order) return;
  if (event.type === 'checkout_session.completed') Object.assign(order, { status: 'succeeded', payment_id: object.payment_id });
  if (event.type === 'checkout_session.expired') order.status = 'expired';
  const ownPayment = order.payment_id === object.id || (order.payment_id === null && order.reference === object.reference);
  if ((event.type === 'payment.succeeded' || event.type === 'payment.failed') && ownPayment)
    Object.assign(order, { status: object.status, payment_id: object.id });
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
  if (req.method === 'POST' && url.pathname === '/checkout') return send(res, 201, await checkout(readJson(await readBody(req))));
  const refund = /^\/orders\/([^/]+)\/refund$/.exec(url.pathname);
  if (req.method === 'POST' && refund) {
    const order = orders.get(decodeURIComponent(refund[1]));
    if (!order) return send(res, 404, { error: 'no such order' });
    const body = readJson(await readBody(req));
    const created = await purse.refunds.create({
      reference: `refund-${randomUUID()}`,
      payment_id: order.payment_id,
      ...(body.amount ? { amount: body.amount } : {}),
    });
    return send(res, 201, created);
  }
  const back = /^\/orders\/([^/]+)\/(paid|cancelled)$/.exec(url.pathname);
  // The browser's return proves nothing: the page shows the order as the webhooks left it.
  if (req.method === 'GET' && back) return send(res, 200, orders.get(decodeURIComponent(back[1])) ?? { error: 'no such order' });
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
      if (error instanceof BadRequest) return send(res, 400, { error: 'invalid_request', message: error.message });
      // Purse's errors carry what a developer needs: code, param, request id.
      if (error instanceof PurseError)
        return send(res, error.status ?? 502, {
          error: error.code,
          param: error.param,
          message: error.message,
          request_id: error.requestId,
        });
      console.error(`shop: ${req.method} ${req.url} failed:`, error);
      send(res, 500, { error: 'internal', message: "see the shop's log" });
    });
  });
  server.listen(port, '127.0.0.1', () => console.log(`shop: listening on http://127.0.0.1:${port}`));
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  console.error(`shop: ${error instanceof PurseError ? `${error.code}: ${error.message}` : error}`);
  if (error instanceof PurseError && error.type === 'network_error')
    console.error('shop: Purse started on another port? Give the shop its address: PURSE_BASE_URL=http://127.0.0.1:PORT npm run shop');
  process.exit(1);
});
