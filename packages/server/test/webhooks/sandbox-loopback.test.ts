// Local webhooks without friction: with PURSE_SANDBOX_LOOPBACK_WEBHOOKS (the default on the
// embedded database), a sandbox merchant may register loopback URLs (127.0.0.0/8, ::1, localhost)
// for endpoints and callback_url, and deliveries reach them; other private ranges stay refused,
// live merchants never get the allowance, and a refusal says how to allow loopback.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { guardedLookup, postWebhook } from '../../src/webhooks/sender.ts';
import { addressPolicy, checkCallbackUrl } from '../../src/webhooks/url-guard.ts';
import { createTestMerchant } from '../helpers/app.ts';
import { cardMethod, uniqueRef } from '../helpers/factories.ts';
import { startReceiver } from './receiver.ts';
import { eventually, injectApi, useFileApp, usePrivatePostgres, verifyReceipt, webhookId } from './support.ts';

/** Any well-formed service key: PostgreSQL configurations require one. */
const KEY = 'k'.repeat(48);

usePrivatePostgres();
const fileApp = useFileApp({
  env: { PURSE_ALLOW_PRIVATE_WEBHOOK_URLS: 'false', PURSE_SANDBOX_LOOPBACK_WEBHOOKS: 'true', PURSE_WEBHOOK_RETRY_SCHEDULE_S: '0.05,0.1' },
});

test('the default: on with the embedded database, off with PostgreSQL; the variable overrides both', () => {
  assert.equal(loadConfig({}).sandboxLoopbackWebhooks, true);
  assert.equal(loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/db', PURSE_SECRET_KEY: KEY }).sandboxLoopbackWebhooks, false);
  assert.equal(
    loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/db', PURSE_SECRET_KEY: KEY, PURSE_SANDBOX_LOOPBACK_WEBHOOKS: 'true' })
      .sandboxLoopbackWebhooks,
    true,
  );
  assert.equal(loadConfig({ PURSE_SANDBOX_LOOPBACK_WEBHOOKS: 'false' }).sandboxLoopbackWebhooks, false);
});

test('the policy: loopback only, sandbox only', async () => {
  const config = { allowPrivateWebhookUrls: false, sandboxLoopbackWebhooks: true };
  const sandbox = addressPolicy(config, false);
  const live = addressPolicy(config, true);
  for (const url of [
    'http://127.0.0.1:3000/hooks',
    'http://localhost:3000/',
    'http://[::1]:3000/',
    'http://127.8.9.10/',
    'http://app.localhost/',
  ])
    assert.equal(checkCallbackUrl(url, sandbox), null, url);
  for (const url of ['http://10.0.0.1/', 'http://192.168.1.1/', 'http://169.254.169.254/', 'http://[fd00::1]/', 'http://0.0.0.0/']) {
    assert.equal(checkCallbackUrl(url, sandbox), 'private_address', url);
  }
  for (const url of ['http://127.0.0.1:3000/hooks', 'http://localhost/']) assert.equal(checkCallbackUrl(url, live), 'private_address', url);
  // At connect time too: a name resolving to loopback passes for sandbox only.
  const lookup = (policy: typeof sandbox) =>
    new Promise<string | undefined>((resolve) => guardedLookup(policy)('localhost', { all: true }, (err) => resolve(err?.code)));
  assert.equal(await lookup(sandbox), undefined);
  assert.equal(await lookup(live), 'EBLOCKEDADDRESS');
  const refused = await postWebhook('http://10.255.255.1:9/x', '{}', {}, { timeoutMs: 500, policy: sandbox });
  assert.match(refused.error ?? '', /private address/);
});

test('a sandbox merchant registers a loopback endpoint and callback_url and receives verified deliveries; a live merchant is refused with the way to allow it', async (t) => {
  const app = fileApp();
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const sandbox = injectApi(app, (await createTestMerchant(app, 'Sandbox dev')).auth);
  const endpoint = await sandbox.post('/v1/webhook_endpoints', { url: `http://localhost:${receiver.port}/hooks` });
  assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
  const secret = (await sandbox.get('/v1/webhook_secret')).body.secret as string;
  const pay = await sandbox.post('/v1/payments', {
    reference: uniqueRef(),
    amount: '1.00',
    currency: 'KES',
    payment_method: cardMethod(),
    callback_url: `http://127.0.0.1:${receiver.port}/callback`,
  });
  assert.equal(pay.status, 201, JSON.stringify(pay.body));
  await eventually('both deliveries', () => ['/hooks', '/callback'].every((p) => receiver.received.some((r) => r.path === p && r.ok)));
  const hook = receiver.received.find((r) => r.path === '/hooks' && r.ok)!;
  assert.equal(verifyReceipt(hook, endpoint.body.secret).data.object.id, pay.body.id);
  const callback = receiver.received.find((r) => r.path === '/callback' && r.ok)!;
  assert.equal(verifyReceipt(callback, secret).id, webhookId(callback));

  const privateRange = await sandbox.post('/v1/webhook_endpoints', { url: 'http://10.0.0.1/hooks' });
  assert.equal(privateRange.status, 400);

  const live = injectApi(app, (await createTestMerchant(app, 'Live', true)).auth);
  const refused = await live.post('/v1/webhook_endpoints', { url: `http://127.0.0.1:${receiver.port}/hooks` });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error.param, 'url');
  assert.match(refused.body.error.message, /PURSE_SANDBOX_LOOPBACK_WEBHOOKS=true/);
  const refusedCallback = await live.post('/v1/payments', {
    reference: uniqueRef(),
    amount: '1.00',
    currency: 'KES',
    payment_method: cardMethod(),
    callback_url: `http://127.0.0.1:${receiver.port}/callback`,
  });
  assert.equal(refusedCallback.status, 400);
  assert.equal(refusedCallback.body.error.param, 'callback_url');
});
