// Which connector a new charge goes to. Sandbox merchants: the sandbox, for every means and
// whatever operator they name. Live merchants: no connector ships for live money yet, so every
// provider charge fails at once with provider_error, as before the routing table existed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildTestApp, createTestMerchant, type TestApp } from '../helpers/app.ts';
import { assertLedgerHealthy, cardMethod, mobileMethod, post, uniqueRef } from '../helpers/factories.ts';

let app: TestApp;

before(async () => {
  app = await buildTestApp(null);
});

after(async () => {
  await app.close();
  await app.deps.close();
});

async function stored(id: string) {
  const db = app.deps.db.db;
  const charge = await db
    .selectFrom('charges')
    .select(['provider', 'status', 'failure_code'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const books = await db.selectFrom('sandbox_provider_charges').select('idempotency_key').where('idempotency_key', '=', id).execute();
  return { ...charge, books: books.length };
}

const methods = {
  'mobile money': mobileMethod('+254712345005'),
  'mobile money naming mtn': { type: 'mobile_money', mobile_money: { phone_number: '+256772345005', provider: 'mtn' } },
  'mobile money naming mpesa': { type: 'mobile_money', mobile_money: { phone_number: '+254712345005', provider: 'mpesa' } },
  card: cardMethod(),
};

test('a sandbox merchant: every means goes to the sandbox, recorded as provider sandbox', async () => {
  const merchant = await createTestMerchant(app, 'Sandbox routing');
  for (const [name, method] of Object.entries(methods)) {
    const res = await post(app, merchant, '/v1/payments', {
      reference: uniqueRef(),
      amount: '5.00',
      currency: 'KES',
      payment_method: method,
    });
    assert.equal(res.statusCode, 201, `${name}: ${res.body}`);
    assert.notEqual(res.json().status, 'failed', name);
    assert.deepEqual(await stored(res.json().id), { provider: 'sandbox', status: res.json().status, failure_code: null, books: 1 }, name);
  }
});

test('a live merchant with no connector for the means: 201 failed provider_error, no provider reached', async () => {
  const merchant = await createTestMerchant(app, 'Live routing', true);
  // Allowed to post card numbers (purse merchant update --raw-card-data): the card is refused for want of an acquirer.
  await app.deps.db.db.updateTable('merchants').set({ raw_card_data: true }).where('id', '=', merchant.merchantId).execute();
  for (const [name, method] of Object.entries(methods)) {
    const res = await post(app, merchant, '/v1/payments', {
      reference: uniqueRef(),
      amount: '5.00',
      currency: 'KES',
      payment_method: method,
    });
    assert.equal(res.statusCode, 201, `${name}: ${res.body}`);
    assert.equal(res.json().status, 'failed', name);
    assert.equal(res.json().failure.code, 'provider_error', name);
    assert.deepEqual(
      await stored(res.json().id),
      { provider: 'unconfigured', status: 'failed', failure_code: 'provider_error', books: 0 },
      name,
    );
  }
  await assertLedgerHealthy(app);
});
