// SSRF guard of webhook and callback URLs. With PURSE_ALLOW_PRIVATE_WEBHOOK_URLS=false, webhook
// endpoints and callback_url refuse loopback, private, link-local and unique-local addresses, other
// schemes and credentials (400, nothing stored), and the sender itself refuses to connect to a
// private address, whether it comes from a name (localhost) or an address literal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { guardedLookup, postWebhook } from '../../src/webhooks/sender.ts';
import { createTestMerchant } from '../helpers/app.ts';
import { cardMethod, uniqueRef } from '../helpers/factories.ts';
import { startReceiver } from './receiver.ts';
import { figures, injectApi, useFileApp, usePrivatePostgres } from './support.ts';

usePrivatePostgres();
// No delivery worker: the positive controls below name public hosts, and this suite sends
// traffic to 127.0.0.1 only.
const fileApp = useFileApp({ env: { PURSE_ALLOW_PRIVATE_WEBHOOK_URLS: 'false' }, deliveryWorker: false });

const REFUSED = [
  'http://127.0.0.1/x',
  'http://localhost/x',
  'http://10.0.0.1/',
  'http://192.168.1.1/',
  'http://172.16.5.4/',
  'http://169.254.169.254/latest',
  'http://[::1]/',
  'http://[fd00::1]/',
  'http://[fe80::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://0.0.0.0/',
  'http://2130706433/', // 127.0.0.1 as one number
  'http://127.1/',
  'http://100.64.0.1/',
  'http://app.localhost/',
  'http://localhost./x',
  'ftp://example.com',
  'file:///etc/passwd',
  'https://user:pass@example.com/',
  'not a url',
  // Special-purpose IPv4 and IPv6 ranges beyond the private ones: documentation, multicast,
  // NAT64, 6to4, Teredo, IPv4-compatible, site-local.
  'http://192.0.2.1/',
  'http://224.0.0.1/',
  'http://[64:ff9b::7f00:1]/',
  'http://[2002:7f00:1::1]/',
  'http://[2001::1]/',
  'http://[::7f00:1]/',
  'http://[fec0::1]/',
  // Raw spaces and control characters are refused, not percent-encoded.
  'https://shop.example/a b',
  ' https://shop.example/',
  'https://shop.example/\tx',
  'https://shop.example/\u0007',
];

/** Addresses the sender must refuse at connection time (classification only, nothing sent). */
const REFUSED_ADDRESSES = [
  '127.0.0.1',
  '10.1.2.3',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '::1',
  '::',
  'fe80::1',
  'fc00::1',
  'fec0::1',
  '64:ff9b::7f00:1',
  '64:ff9b::808:808',
  '2002:7f00:1::1',
  '2001::1',
  '::7f00:1',
  '::ffff:127.0.0.1',
  '2001:db8::5',
];

test('webhook endpoints: private, loopback and link-local URLs, other schemes and credentials → 400 param url, nothing stored', async (t) => {
  const app = fileApp();
  assert.equal(app.deps.config.allowPrivateWebhookUrls, false);
  const api = injectApi(app, (await createTestMerchant(app, 'SSRF endpoints')).auth);
  for (const url of REFUSED) {
    const res = await api.post('/v1/webhook_endpoints', { url });
    assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.error.code, 'parameter_invalid', url);
    assert.equal(res.body.error.param, 'url', url);
  }
  const storedAfterRefusals = (await api.get('/v1/webhook_endpoints')).body.data.length;
  assert.equal(storedAfterRefusals, 0, 'nothing stored');
  // Positive control: a public address literal is accepted (resolving a literal sends nothing).
  const ok = await api.post('/v1/webhook_endpoints', { url: 'https://93.184.216.34/hooks' });
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  assert.equal((await api.get('/v1/webhook_endpoints')).body.data.length, 1, 'the listing shows what is stored');
  figures(t, 'ssrf endpoints', { refused: REFUSED.length, stored: storedAfterRefusals });
});

test('payments and top-ups: such a callback_url → 400 param callback_url, nothing stored', async (t) => {
  const app = fileApp();
  const api = injectApi(app, (await createTestMerchant(app, 'SSRF callbacks')).auth);
  const wallet = (await api.post('/v1/wallets', { currency: 'KES' })).body.id;
  for (const url of REFUSED) {
    const pay = await api.post('/v1/payments', {
      reference: uniqueRef('ssrf'),
      amount: '1.00',
      currency: 'KES',
      payment_method: cardMethod(),
      callback_url: url,
    });
    assert.equal(pay.status, 400, `${url}: ${JSON.stringify(pay.body)}`);
    assert.equal(pay.body.error.code, 'parameter_invalid', url);
    assert.equal(pay.body.error.param, 'callback_url', url);
    const top = await api.post('/v1/topups', {
      reference: uniqueRef('ssrf'),
      amount: '1.00',
      currency: 'KES',
      wallet_id: wallet,
      source: cardMethod(),
      callback_url: url,
    });
    assert.equal(top.status, 400, `${url}: ${JSON.stringify(top.body)}`);
    assert.equal(top.body.error.param, 'callback_url', url);
  }
  const storedAfterRefusals =
    (await api.get('/v1/payments')).body.data.length +
    (await api.get('/v1/topups')).body.data.length +
    (await api.get('/v1/events')).body.data.length;
  assert.equal(storedAfterRefusals, 0, 'no payment, top-up or event stored');
  // Positive control: public names and addresses are accepted (checked by form; no delivery
  // worker runs in this file, so nothing is sent).
  for (const url of ['https://shop.example/hooks', 'http://93.184.216.34/hooks']) {
    const ok = await api.post('/v1/payments', {
      reference: uniqueRef('ssrf'),
      amount: '1.00',
      currency: 'KES',
      payment_method: cardMethod(),
      callback_url: url,
    });
    assert.equal(ok.status, 201, `${url}: ${JSON.stringify(ok.body)}`);
  }
  assert.equal((await api.get('/v1/payments')).body.data.length, 2, 'the listing shows what is stored');
  figures(t, 'ssrf callbacks', { refused: REFUSED.length * 2, stored: storedAfterRefusals });
});

test('the connect-time classifier refuses every special-purpose address and accepts global unicast ones', async (t) => {
  const { isPrivateAddress } = await import('../../src/webhooks/url-guard.ts');
  for (const address of REFUSED_ADDRESSES) assert.equal(isPrivateAddress(address), true, address);
  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) {
    assert.equal(isPrivateAddress(address), false, address);
  }
  // The sender itself refuses such literals before connecting.
  for (const literal of ['[64:ff9b::7f00:1]', '[2002:7f00:1::1]', '[fec0::1]']) {
    const result = await postWebhook(
      `http://${literal}:9/hooks`,
      '{}',
      {},
      { timeoutMs: 2_000, policy: { allowPrivate: false, allowLoopback: false } },
    );
    assert.equal(result.statusCode, null, literal);
    assert.match(result.error ?? '', /private address/, literal);
  }
  figures(t, 'ssrf classifier', { refused: REFUSED_ADDRESSES.length });
});

test('the sender refuses a private address at connection time: a name resolving to 127.0.0.1, and an address literal', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const body = JSON.stringify({ id: 'evt_test' });
  const headers = { 'webhook-id': 'evt_test', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,x' };

  // The lookup itself: "localhost" resolves to loopback and is refused.
  const lookupError = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
    guardedLookup({ allowPrivate: false, allowLoopback: false })('localhost', { all: true }, (err) => resolve(err)),
  );
  assert.equal(lookupError?.code, 'EBLOCKEDADDRESS');
  const allowed = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
    guardedLookup({ allowPrivate: true, allowLoopback: false })('localhost', { all: true }, (err) => resolve(err)),
  );
  assert.equal(allowed, null);

  const byName = `http://localhost:${receiver.port}/hooks`;
  const refused = await postWebhook(byName, body, headers, { timeoutMs: 2_000, policy: { allowPrivate: false, allowLoopback: false } });
  assert.equal(refused.statusCode, null);
  assert.match(refused.error ?? '', /private address/);

  const byLiteral = await postWebhook(`http://127.0.0.1:${receiver.port}/hooks`, body, headers, {
    timeoutMs: 2_000,
    policy: { allowPrivate: false, allowLoopback: false },
  });
  assert.equal(byLiteral.statusCode, null);
  assert.match(byLiteral.error ?? '', /private address/);
  const byV6Literal = await postWebhook(`http://[::1]:${receiver.port}/hooks`, body, headers, {
    timeoutMs: 2_000,
    policy: { allowPrivate: false, allowLoopback: false },
  });
  assert.equal(byV6Literal.statusCode, null);
  assert.match(byV6Literal.error ?? '', /private address/);
  assert.equal(receiver.received.length, 0, 'nothing reached the receiver');

  // Positive control: the same call with private addresses allowed reaches it.
  const reached = await postWebhook(`http://127.0.0.1:${receiver.port}/hooks`, body, headers, {
    timeoutMs: 2_000,
    policy: { allowPrivate: true, allowLoopback: false },
  });
  assert.equal(reached.statusCode, 200, JSON.stringify(reached));
  assert.equal(receiver.received.length, 1);
  figures(t, 'ssrf sender', { refusedByName: refused.error, refusedByLiteral: byLiteral.error, reachedWhenAllowed: reached.statusCode });
});
