// A request is never executed unless it can be answered. Two requests written back to back on one
// connection: the first over the body limit (413, which closes the connection), the second a valid
// payment. The 413 says `Connection: close`, and the payment is not stored: either it is answered,
// or it never ran. After an early error that keeps the connection (400 bad JSON), the next request
// is answered as usual.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { uniqueRef } from '../helpers/factories.ts';

function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      got += chunk;
    });
    socket.on('error', (error) => (got ? resolve(got) : reject(error)));
    socket.on('close', () => resolve(got));
    socket.write(bytes, 'latin1');
    setTimeout(() => socket.end(), 3_000).unref();
  });
}

function request(method: string, path: string, auth: string, body: string, extra = ''): string {
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
}

const statuses = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));

test('413 then a payment on one connection: Connection: close, and the payment never runs unanswered', async (t) => {
  const app = await buildTestApp(t, { env: { PURSE_WORKER: 'false' } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as net.AddressInfo).port;
  const merchant = await createTestMerchant(app);
  for (const size of [20 * 1024, 60 * 1024]) {
    const reference = uniqueRef('pipelined');
    const big = JSON.stringify({ reference: uniqueRef(), amount: '1.00', currency: 'KES', description: 'x'.repeat(size) });
    const pay = JSON.stringify({
      reference,
      amount: '1.00',
      currency: 'KES',
      payment_method: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' } },
    });
    const text = await rawExchange(
      port,
      request('POST', '/v1/payments', merchant.auth.authorization, big) + request('POST', '/v1/payments', merchant.auth.authorization, pay),
    );
    const seen = statuses(text);
    assert.equal(seen[0], 413, text.slice(0, 300));
    assert.match(text.split('\r\n\r\n')[0]!, /\r\nconnection: close/i, 'the 413 says the connection closes');
    await new Promise((r) => setTimeout(r, 300));
    const stored = await app.inject({ method: 'GET', url: `/v1/payments?reference=${reference}`, headers: merchant.auth });
    const count = stored.json().data.length as number;
    if (seen.length === 1) assert.equal(count, 0, `size ${size}: executed without an answer`);
    else assert.equal(seen[1], 201, 'answered, then it may exist');
  }
});

test('after a body Fastify cannot parse (400, Connection: close) the next request never runs; after a 400 that keeps the connection it runs and is answered', async (t) => {
  const app = await buildTestApp(t, { env: { PURSE_WORKER: 'false' } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as net.AddressInfo).port;
  const merchant = await createTestMerchant(app);
  const payBody = (reference: string) =>
    JSON.stringify({
      reference,
      amount: '1.00',
      currency: 'KES',
      payment_method: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' } },
    });
  const count = async (reference: string) =>
    (await app.inject({ method: 'GET', url: `/v1/payments?reference=${reference}`, headers: merchant.auth })).json().data.length as number;

  const afterBadJson = uniqueRef('after-bad-json');
  const closed = await rawExchange(
    port,
    request('POST', '/v1/payments', merchant.auth.authorization, '{"amount":') +
      request('POST', '/v1/payments', merchant.auth.authorization, payBody(afterBadJson)),
  );
  const closedStatuses = statuses(closed);
  assert.equal(closedStatuses[0], 400);
  assert.match(closed.split('\r\n\r\n')[0]!, /\r\nconnection: close/i);
  await new Promise((r) => setTimeout(r, 300));
  if (closedStatuses.length === 1) assert.equal(await count(afterBadJson), 0, 'executed without an answer');

  const afterMissing = uniqueRef('after-400');
  const kept = await rawExchange(
    port,
    request('POST', '/v1/payments', merchant.auth.authorization, '{}') +
      request('POST', '/v1/payments', merchant.auth.authorization, payBody(afterMissing), 'Connection: close\r\n'),
  );
  assert.deepEqual(statuses(kept), [400, 201]);
  assert.equal(await count(afterMissing), 1);
});
