// The dashboard's Payment links page in Chromium: create a link with a fixed amount and one with
// an open amount, each shown with its URL and a QR code; turn one off; axe on the page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { assertAccessible, collectPageErrors, launchChromium, signInWithClientCredentials } from './browser.ts';

test('dashboard: payment links with their QR codes, turned off and on', async (t) => {
  const browser = await launchChromium(t);
  if (!browser) return;
  const app = await buildTestApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const merchant = await createTestMerchant(app, 'Links shop');
  const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
  const errors = collectPageErrors(page);
  await page.goto(`${base}/dashboard`);
  await signInWithClientCredentials(page, merchant.clientId, merchant.clientSecret);
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Payment links', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Payment links' }).waitFor();
  await page.getByLabel('What the payer buys').fill('Yoga class');
  await page.getByLabel(/^Amount/).fill('25.00');
  await page.getByRole('button', { name: 'Create link' }).click();
  const created = page.getByRole('status');
  await created.getByRole('img', { name: /QR code of the payment link for Yoga class/ }).waitFor();
  const url = await created.getByRole('link').textContent();
  assert.match(url ?? '', /\/pay\/link\/[A-Za-z0-9_-]{43}$/);
  await assertAccessible(page, 'the payment links page');
  await page.getByRole('button', { name: 'Turn off' }).click();
  await page.getByRole('button', { name: 'Turn on' }).waitFor();
  const links = await app.inject({ method: 'GET', url: '/v1/payment_links', headers: merchant.auth });
  assert.deepEqual(
    links.json().data.map((l: { description: string; active: boolean; amount: string }) => [l.description, l.active, l.amount]),
    [['Yoga class', false, '25.00']],
  );
  assert.deepEqual(errors, []);
});
