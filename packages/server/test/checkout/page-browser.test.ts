// The hosted checkout page in Debian's Chromium (playwright-core): card without and with 3-D
// Secure, a declined card then a good one, mobile money pending then paid, an expired session,
// the cancel link; axe on every state, the CSP header, first-load JS under 60 KB gzip, and no
// card number in any API response, event, log line or database row after the run.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { pino } from 'pino';
import type { Browser, Page } from 'playwright-core';
import { loggerOptions } from '../../src/shared/logging.ts';
import { assertAccessible, collectPageErrors, gzipBytesOfScripts, launchChromium } from '../dashboard/browser.ts';
import { client } from '../e2e/http.ts';
import { buildTestApp, createTestMerchant, type TestApp } from '../helpers/app.ts';
import { expireByTime, sessionBody } from './support.ts';

const CARDS = ['4242424242424242', '4000000000000002', '4000000000003220', '5555555555554444'];
const lines: string[] = [];
const responses: string[] = [];
let app: TestApp;
let base: string;
let api: ReturnType<typeof client>;
let browser: Browser | null;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  app = await buildTestApp(null, { env: { PURSE_PUBLIC_URL: base }, logger: pino(loggerOptions('debug') as object, stream) });
  await app.listen({ port, host: '127.0.0.1' });
  app.deps.worker.start();
  app.deps.checkoutWorker.start();
  const merchant = await createTestMerchant(app, 'Browser shop');
  const raw = client(base, merchant);
  // Every API answer of the run is kept, to be searched for card numbers at the end.
  const keep = async <T extends { body: unknown }>(p: Promise<T>) => {
    const r = await p;
    responses.push(JSON.stringify(r.body));
    return r;
  };
  api = { ...raw, get: (path) => keep(raw.get(path)), post: (path, payload) => keep(raw.post(path, payload)) };
});

after(async () => {
  await app.close();
  await app.deps.close();
});

async function newSession(overrides: Record<string, unknown> = {}) {
  const res = await api.post(
    '/v1/checkout_sessions',
    sessionBody({ success_url: `${base}/healthz?shop=1`, cancel_url: `${base}/healthz?cancelled=1`, ...overrides }),
  );
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; url: string };
}

async function openPage(t: Parameters<typeof launchChromium>[0]): Promise<{ page: Page; errors: string[] } | null> {
  browser = await launchChromium(t);
  if (!browser) return null;
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  const errors = collectPageErrors(page);
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`response ${r.status()} ${r.url()}`);
  });
  return { page, errors };
}

async function payByCard(page: Page, number: string) {
  await page.getByLabel('Card', { exact: true }).check();
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel(/^Expiry/).fill('12/35');
  await page.getByLabel('CVC').fill('123');
  await page.getByLabel('Name on card').fill('Ama Mensah');
  await page.getByRole('button', { name: /^Pay / }).click();
}

test('card without 3-D Secure: strict CSP, accessible at 360 px, small script, receipt, then success_url', async (t) => {
  const opened = await openPage(t);
  if (!opened) return;
  const { page, errors } = opened;
  const s = await newSession();
  const response = await page.goto(s.url);
  const csp = response?.headers()['content-security-policy'] ?? '';
  assert.match(csp, /script-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline|https?:/);
  assert.equal(response?.headers()['referrer-policy'], 'no-referrer');
  assert.equal(await page.locator('script:not([src])').count(), 0, 'no inline script');
  await assertAccessible(page, 'the form');
  const js = await gzipBytesOfScripts(page);
  assert.ok(js < 60 * 1024, `first-load JS ${js} B gzip`);
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  assert.equal(await page.locator('#brand').textContent(), 'Visa');
  await payByCard(page, CARDS[0] as string);
  await page.getByText('Payment received').waitFor();
  assert.deepEqual(errors, [], 'no page error on the hosted page');
  await page.waitForURL(`${base}/healthz?shop=1&session_id=${s.id}`);
  const session = (await api.get(`/v1/checkout_sessions/${s.id}`)).body;
  assert.deepEqual([session.status, session.payment_status], ['complete', 'paid']);
  // The receipt, checked by axe in a page of its own that does not load pay.js: its script sends the
  // browser on after 1.5 s, and axe on a loaded machine takes longer (the navigation ended its run).
  const still = await (await (browser as Browser).newContext({ viewport: { width: 360, height: 740 } })).newPage();
  await still.route('**/pay/assets/pay.js', (route) => route.abort());
  await still.goto(s.url);
  await still.getByText('Payment received').waitFor();
  await assertAccessible(still, 'the receipt');
  t.diagnostic(`first-load JS: ${js} B gzip`);
});

test('a declined card, then 3-D Secure completed, in French', async (t) => {
  const opened = await openPage(t);
  if (!opened) return;
  const { page } = opened;
  const s = await newSession();
  await page.goto(`${s.url}?lang=fr`);
  await page.getByRole('button', { name: /^Payer / }).waitFor();
  assert.match((await page.locator('.amount strong').textContent()) ?? '', /10,50\s*KES/);
  await assertAccessible(page, 'the French form');
  await page.goto(`${s.url}?lang=en`);
  await payByCard(page, CARDS[1] as string);
  await page.getByRole('alert').getByText('Your card was declined').waitFor();
  await assertAccessible(page, 'the failure');
  await page.getByRole('button', { name: 'Try again' }).click();
  await payByCard(page, CARDS[2] as string);
  await page.getByRole('heading', { name: 'Confirm with your bank' }).waitFor();
  await assertAccessible(page, 'the 3-D Secure step');
  await page.getByRole('link', { name: 'Continue' }).click();
  await assertAccessible(page, 'the challenge');
  await page.getByRole('button', { name: 'Complete' }).click();
  await page.getByText('Payment received').waitFor();
  await page.waitForURL(new RegExp(`session_id=${s.id}`));
  const session = (await api.get(`/v1/checkout_sessions/${s.id}`)).body;
  assert.equal(session.status, 'complete');
  const payment = (await api.get(`/v1/payments/${session.payment_id}`)).body;
  assert.equal(payment.reference.endsWith('/attempt-2'), true);
});

test('mobile money: waiting on the phone, then paid', async (t) => {
  const opened = await openPage(t);
  if (!opened) return;
  const { page } = opened;
  const s = await newSession();
  await page.goto(s.url);
  await page.getByLabel('Mobile money').check();
  await page.getByLabel('Phone number').fill('+254712345005');
  await page.getByRole('button', { name: /^Pay / }).click();
  await page.getByText('Approve the payment on your phone').first().waitFor();
  await assertAccessible(page, 'the waiting state');
  const pending = (await api.get(`/v1/checkout_sessions/${s.id}`)).body;
  assert.equal(pending.status, 'open');
  const payments = (
    await api.get(
      `/v1/payments?reference=${encodeURIComponent(`${(await api.get(`/v1/checkout_sessions/${s.id}`)).body.reference}/attempt-1`)}`,
    )
  ).body;
  await api.post(`/v1/sandbox/payments/${payments.data[0].id}/succeed`);
  await page.getByText('Payment received').waitFor({ timeout: 15_000 });
  await page.waitForURL(new RegExp(`session_id=${s.id}`));
});

test('an expired session, and the cancel link', async (t) => {
  const opened = await openPage(t);
  if (!opened) return;
  const { page } = opened;
  const s = await newSession();
  await page.goto(s.url);
  await page.getByRole('link', { name: 'Cancel' }).click();
  await page.waitForURL(`${base}/healthz?cancelled=1`);
  await expireByTime(app, s.id);
  // Opened again until it says so (once seen on a loaded PostgreSQL run: the page did not within
  // 30 s); a failure names what the page and the API showed instead.
  const expired = page.getByRole('heading', { name: 'This payment page has expired' });
  for (let tries = 0; tries < 10 && !(await expired.isVisible()); tries++) {
    if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
    await page.goto(s.url);
  }
  if (!(await expired.isVisible())) {
    const session = (await api.get(`/v1/checkout_sessions/${s.id}`)).body;
    const row =
      await sql`SELECT status, expires_at, attempt_lease_until, now() AS db_now FROM checkout_sessions WHERE id = ${s.id}`.execute(
        app.deps.db.db,
      );
    assert.fail(
      `the page shows ${JSON.stringify(await page.locator('h1').allTextContents())}; the API: ${session.status}; the row: ${JSON.stringify(row.rows[0])}; app clock ${new Date().toISOString()}`,
    );
  }
  await assertAccessible(page, 'the expired page');
  const unknown = await page.goto(`${base}/pay/${'x'.repeat(43)}`);
  assert.equal(unknown?.status(), 404);
});

test('a payment link used twice: two sessions, two payments; an open amount is asked first', async (t) => {
  const opened = await openPage(t);
  if (!opened) return;
  const { page } = opened;
  const fixed = (
    await api.post('/v1/payment_links', {
      currency: 'KES',
      description: 'Class pass',
      amount: '7.00',
      after_completion_url: `${base}/healthz?link=1`,
    })
  ).body;
  for (let i = 0; i < 2; i++) {
    await page.goto(fixed.url);
    await assertAccessible(page, "the link's session");
    await payByCard(page, CARDS[3] as string);
    await page.waitForURL(/link=1&session_id=cs_/);
  }
  const sessions = (await api.get(`/v1/checkout_sessions?payment_link=${fixed.id}`)).body.data;
  assert.deepEqual(
    sessions.map((s: { status: string }) => s.status),
    ['complete', 'complete'],
  );
  assert.notEqual(sessions[0].payment_id, sessions[1].payment_id);
  const open = (await api.post('/v1/payment_links', { currency: 'KES', description: 'Tips', amount: null })).body;
  await page.goto(open.url);
  await assertAccessible(page, 'the amount form');
  await page.getByLabel(/^Amount/).fill('3,50');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: /^Pay .*3\.50/ }).waitFor();
  const tips = (await api.get(`/v1/checkout_sessions?payment_link=${open.id}`)).body.data;
  assert.equal(tips[0].amount, '3.50');
});

test('a form without its CSRF pair is refused', async () => {
  const s = await newSession();
  const res = await fetch(s.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `method=card&number=${CARDS[3]}&expiry=12%2F35&cvc=123`,
    redirect: 'manual',
  });
  assert.equal(res.status, 403);
  assert.equal((await api.get(`/v1/checkout_sessions/${s.id}`)).body.payment_id, null);
});

test('after the run: no card number in any API response, event, log line or database row', async () => {
  const events = (await api.get('/v1/events?limit=100')).body;
  responses.push(JSON.stringify(events));
  const tables = await sql<{ t: string }>`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public'`.execute(
    app.deps.db.db,
  );
  const dump: string[] = [];
  for (const { t } of tables.rows) {
    const rows = await sql<{ row: unknown }>`SELECT row_to_json(x) AS row FROM ${sql.table(t)} x`.execute(app.deps.db.db);
    dump.push(JSON.stringify(rows.rows));
  }
  assert.ok(lines.length > 10 && dump.join('').includes('4242'), 'the search has something to search');
  for (const number of CARDS) {
    for (const [where, text] of [
      ['responses', responses.join('\n')],
      ['logs', lines.join('')],
      ['database', dump.join('\n')],
    ] as const) {
      assert.ok(!text.includes(number), `${number} found in the ${where}`);
    }
  }
});
