// Every method of the client, against a fake Purse: the HTTP method, the path and the body it
// sends (a POST without parameters sends {}, every retry the same bytes), with the Bearer token.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Purse } from '../src/index.ts';
import { page, startFakePurse } from './fake-purse.ts';

type Row = [name: string, call: (p: Purse) => PromiseLike<unknown>, method: string, url: string, body?: unknown];

const rows: Row[] = [
  [
    'payments.create',
    (p) =>
      p.payments.create({
        reference: 'r',
        amount: '1.00',
        currency: 'KES',
        payment_method: { type: 'wallet', wallet: { wallet_id: 'wal_1' } },
      }),
    'POST',
    '/v1/payments',
    { reference: 'r', amount: '1.00', currency: 'KES', payment_method: { type: 'wallet', wallet: { wallet_id: 'wal_1' } } },
  ],
  ['payments.retrieve', (p) => p.payments.retrieve('pay_1'), 'GET', '/v1/payments/pay_1'],
  ['payments.list', (p) => p.payments.list({ payment_method_type: 'card' }), 'GET', '/v1/payments?payment_method_type=card'],
  ['payments.capture', (p) => p.payments.capture('pay_1', { amount: '5.00' }), 'POST', '/v1/payments/pay_1/capture', { amount: '5.00' }],
  ['payments.cancel', (p) => p.payments.cancel('pay_1'), 'POST', '/v1/payments/pay_1/cancel', {}],
  [
    'topups.create',
    (p) =>
      p.topups.create({
        reference: 'r',
        amount: '1',
        currency: 'UGX',
        wallet_id: 'wal_1',
        source: { type: 'mobile_money', mobile_money: { phone_number: '+256772000000' } },
      }),
    'POST',
    '/v1/topups',
    {
      reference: 'r',
      amount: '1',
      currency: 'UGX',
      wallet_id: 'wal_1',
      source: { type: 'mobile_money', mobile_money: { phone_number: '+256772000000' } },
    },
  ],
  ['topups.retrieve', (p) => p.topups.retrieve('top_1'), 'GET', '/v1/topups/top_1'],
  [
    'refunds.create',
    (p) => p.refunds.create({ reference: 'r', payment_id: 'pay_1' }),
    'POST',
    '/v1/refunds',
    { reference: 'r', payment_id: 'pay_1' },
  ],
  ['refunds.list', (p) => p.refunds.list({ payment_id: 'pay_1' }), 'GET', '/v1/refunds?payment_id=pay_1'],
  [
    'payouts.create',
    (p) =>
      p.payouts.create({
        reference: 'r',
        amount: '1.00',
        currency: 'KES',
        destination: { type: 'wallet', wallet: { wallet_id: 'wal_1' } },
      }),
    'POST',
    '/v1/payouts',
    { reference: 'r', amount: '1.00', currency: 'KES', destination: { type: 'wallet', wallet: { wallet_id: 'wal_1' } } },
  ],
  ['transfers.retrieve', (p) => p.transfers.retrieve('tr_1'), 'GET', '/v1/transfers/tr_1'],
  [
    'checkoutSessions.create',
    (p) =>
      p.checkoutSessions.create({
        reference: 'r',
        amount: '1.00',
        currency: 'KES',
        success_url: 'https://s.example/ok',
        cancel_url: 'https://s.example/',
      }),
    'POST',
    '/v1/checkout_sessions',
    { reference: 'r', amount: '1.00', currency: 'KES', success_url: 'https://s.example/ok', cancel_url: 'https://s.example/' },
  ],
  [
    'paymentLinks.update',
    (p) => p.paymentLinks.update('plink_1', { active: false }),
    'PATCH',
    '/v1/payment_links/plink_1',
    { active: false },
  ],
  ['checkoutSessions.retrieve', (p) => p.checkoutSessions.retrieve('cs_1'), 'GET', '/v1/checkout_sessions/cs_1'],
  ['checkoutSessions.list', (p) => p.checkoutSessions.list({ status: 'open' }), 'GET', '/v1/checkout_sessions?status=open'],
  ['checkoutSessions.expire', (p) => p.checkoutSessions.expire('cs_1'), 'POST', '/v1/checkout_sessions/cs_1/expire', {}],
  ['wallets.create', (p) => p.wallets.create({ currency: 'KES' }), 'POST', '/v1/wallets', { currency: 'KES' }],
  ['wallets.freeze', (p) => p.wallets.freeze('wal_1'), 'POST', '/v1/wallets/wal_1/freeze', {}],
  ['wallets.unfreeze', (p) => p.wallets.unfreeze('wal_1'), 'POST', '/v1/wallets/wal_1/unfreeze', {}],
  ['merchant.retrieve', (p) => p.merchant.retrieve(), 'GET', '/v1/merchant'],
  ['balance.retrieve', (p) => p.balance.retrieve(), 'GET', '/v1/balance'],
  [
    'balanceTransactions.list',
    (p) => p.balanceTransactions.list({ source_type: 'refund' }),
    'GET',
    '/v1/balance_transactions?source_type=refund',
  ],
  ['events.retrieve', (p) => p.events.retrieve('evt_1'), 'GET', '/v1/events/evt_1'],
  [
    'apiKeys.create',
    (p) => p.apiKeys.create({ name: 'ci', scopes: ['payments:read'] }),
    'POST',
    '/v1/api_keys',
    { name: 'ci', scopes: ['payments:read'] },
  ],
  ['apiKeys.retrieve', (p) => p.apiKeys.retrieve('key_1'), 'GET', '/v1/api_keys/key_1'],
  ['apiKeys.list', (p) => p.apiKeys.list(), 'GET', '/v1/api_keys'],
  ['apiKeys.roll', (p) => p.apiKeys.roll('key_1', { overlap_seconds: 60 }), 'POST', '/v1/api_keys/key_1/roll', { overlap_seconds: 60 }],
  ['apiKeys.revoke', (p) => p.apiKeys.revoke('key_1'), 'DELETE', '/v1/api_keys/key_1'],
  ['auditEvents.list', (p) => p.auditEvents.list({ action: 'refund.created' }), 'GET', '/v1/audit_events?action=refund.created'],
  ['events.deliveries', (p) => p.events.deliveries('evt_1'), 'GET', '/v1/events/evt_1/deliveries'],
  ['events.redeliver', (p) => p.events.redeliver('evt_1'), 'POST', '/v1/events/evt_1/redeliver', {}],
  [
    'webhookEndpoints.create',
    (p) => p.webhookEndpoints.create({ url: 'https://shop.example/hooks' }),
    'POST',
    '/v1/webhook_endpoints',
    { url: 'https://shop.example/hooks' },
  ],
  ['webhookEndpoints.list', (p) => p.webhookEndpoints.list(), 'GET', '/v1/webhook_endpoints'],
  [
    'webhookEndpoints.update',
    (p) => p.webhookEndpoints.update('we_1', { status: 'disabled' }),
    'PATCH',
    '/v1/webhook_endpoints/we_1',
    { status: 'disabled' },
  ],
  ['webhookEndpoints.del', (p) => p.webhookEndpoints.del('we_1'), 'DELETE', '/v1/webhook_endpoints/we_1'],
  ['webhookEndpoints.rotateSecret', (p) => p.webhookEndpoints.rotateSecret('we_1'), 'POST', '/v1/webhook_endpoints/we_1/rotate_secret', {}],
  ['webhookEndpoints.sendTestEvent', (p) => p.webhookEndpoints.sendTestEvent('we_1'), 'POST', '/v1/webhook_endpoints/we_1/test', {}],
  ['webhookSecret.retrieve', (p) => p.webhookSecret.retrieve(), 'GET', '/v1/webhook_secret'],
  ['webhookSecret.rotate', (p) => p.webhookSecret.rotate(), 'POST', '/v1/webhook_secret/rotate', {}],
  ['sandbox.payments.succeed', (p) => p.sandbox.payments.succeed('pay_1'), 'POST', '/v1/sandbox/payments/pay_1/succeed', {}],
  [
    'sandbox.payouts.fail',
    (p) => p.sandbox.payouts.fail('po_1', { failure_code: 'payee_not_found' }),
    'POST',
    '/v1/sandbox/payouts/po_1/fail',
    { failure_code: 'payee_not_found' },
  ],
  ['sandbox.topups.fail', (p) => p.sandbox.topups.fail('top_1'), 'POST', '/v1/sandbox/topups/top_1/fail', {}],
];

test('each method sends its operation: method, path, query and JSON body, with the Bearer token', async (t) => {
  const fake = await startFakePurse((req) =>
    req.path === '/oauth/token'
      ? undefined
      : req.method === 'GET' && !/\/(pay|top|tr|evt|we)_1$|merchant|balance$|secret$|deliveries$/.test(req.path)
        ? page([], false)
        : { status: 200, json: {} },
  );
  t.after(() => fake.close());
  const purse = new Purse({ baseUrl: fake.base, clientId: 'cli_1', clientSecret: 'sk_test_1' });
  for (const [name, call, method, url, body] of rows) {
    const before = fake.calls().length;
    await call(purse);
    const sent = fake.calls().slice(before);
    assert.equal(sent.length, 1, name);
    assert.deepEqual([sent[0]!.method, sent[0]!.url], [method, url], name);
    assert.equal(sent[0]!.headers.authorization, 'Bearer tok_1', name);
    if (body === undefined) assert.equal(sent[0]!.body, '', `${name}: no body`);
    else {
      assert.deepEqual(JSON.parse(sent[0]!.body), body, name);
      assert.equal(sent[0]!.headers['content-type'], 'application/json', name);
    }
  }
});
