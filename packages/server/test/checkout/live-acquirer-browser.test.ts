// A live merchant the operator has NOT allowed to send raw card numbers takes cards through the
// hosted page, against the fake acquirer (test/fakes/acquirer.ts), in Chromium: frictionless, then
// with the acquirer's own 3-D Secure page on another origin and back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchChromium } from '../dashboard/browser.ts';
import { client } from '../e2e/http.ts';
import { type FakeAcquirer, fakeAcquirerEnv, startFakeAcquirer } from '../fakes/acquirer.ts';
import { buildTestApp, createTestMerchant, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/processes.ts';
import { sessionBody } from './support.ts';

let fake: FakeAcquirer;
let app: TestApp;
let base: string;
let api: ReturnType<typeof client>;

before(async () => {
  fake = await startFakeAcquirer({ searchLagMs: 0 });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = await buildTestApp(null, { env: { ...fakeAcquirerEnv(fake, base), PURSE_PROVIDER_TIMEOUT_MS: '2000' } });
  await app.listen({ port, host: '127.0.0.1' });
  app.deps.worker.start();
  app.deps.checkoutWorker.start();
  const live = await createTestMerchant(app, 'Live shop without raw cards', true);
  api = client(base, live);
});

after(async () => {
  await app.close();
  await app.deps.close();
  await fake.close();
});

test('live, no raw-card permission: the API refuses the card, the hosted page takes it (frictionless and 3-D Secure)', async (t) => {
  const direct = await api.post('/v1/payments', {
    reference: 'direct-live',
    amount: '10.00',
    currency: 'KES',
    payment_method: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' } },
  });
  assert.equal(direct.body.error.code, 'raw_card_data_not_allowed');
  const browser = await launchChromium(t);
  if (!browser) return;
  const page = await (await browser.newContext({ viewport: { width: 360, height: 740 } })).newPage();
  for (const [number, challenge] of [
    ['4242424242424242', false],
    ['4000000000003220', true],
  ] as const) {
    const s = (
      await api.post('/v1/checkout_sessions', sessionBody({ success_url: `${base}/healthz?live=1`, cancel_url: `${base}/healthz` }))
    ).body;
    assert.equal(s.livemode, true);
    await page.goto(s.url);
    await page.getByLabel('Card', { exact: true }).check();
    await page.getByLabel('Card number').fill(number);
    await page.getByLabel(/^Expiry/).fill('12/35');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: /^Pay / }).click();
    if (challenge) {
      await page.getByRole('link', { name: 'Continue' }).click();
      await page.waitForURL((url) => url.toString().startsWith(fake.url));
      await page.getByRole('button', { name: 'Complete' }).click();
    }
    await page.waitForURL(new RegExp(`live=1&session_id=${s.id}`));
    const got = (await api.get(`/v1/checkout_sessions/${s.id}`)).body;
    assert.deepEqual([got.status, got.payment_status], ['complete', 'paid']);
    const payment = (await api.get(`/v1/payments/${got.payment_id}`)).body;
    assert.equal(payment.livemode, true);
    assert.equal(payment.payment_method.card.last4, number.slice(-4));
  }
  const intents = fake.requests.filter((r) => r.endpoint === 'create_intent').length;
  assert.ok(intents >= 2, `the acquirer saw the authorisations (${intents})`);
});
