// Dashboard users in Chromium against a real Purse: the operator invites the first owner; the owner
// accepts the invitation, signs in, must enrol TOTP (codes computed here from the secret the page
// shows as text), gets the recovery codes once, signs in again with a code and with a recovery
// code, and invites a support user from the Users page;
// support accepts, signs in without TOTP, refunds a payment, has no payout action, and is refused a
// payout made with its session token (403 insufficient_scope). A reload keeps the session; sign-out
// ends it, and its token stops within 5 s. A live merchant's client credentials are refused.
// axe-core on every new page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Purse } from '@purse/sdk';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { CARD_OK, uniqueRef } from '../helpers/factories.ts';
import { eventually } from '../helpers/processes.ts';
import {
  assertAccessible,
  collectPageErrors,
  expectRefusedLoads,
  launchChromium,
  signInWithClientCredentials,
  waitForOrExplain,
} from './browser.ts';
import { go } from './layout.ts';

const OWNER = { email: 'owner@team-shop.example', password: 'correct horse battery owner' };
const SUPPORT = { email: 'support@team-shop.example', password: 'correct horse battery support' };
const RECOVERY_CODE = /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/;

const nav = (page: Page) => page.getByRole('navigation', { name: 'Dashboard' });
const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true });

/** A page of its own (its own cookies), with the page's errors collected. */
async function newPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
  return { page, errors: collectPageErrors(page) };
}

/** The invitation link → a password, typed twice → "Now sign in" → email and password. */
async function acceptAndSignIn(page: Page, link: string, who: { email: string; password: string }, checkAxe = false): Promise<void> {
  await page.goto(link);
  await heading(page, 'Accept your invitation').waitFor();
  assert.equal(new URL(page.url()).hash, '', 'the one-time token leaves the address bar');
  if (checkAxe) await assertAccessible(page, 'the invitation page');
  await page.getByLabel('New password', { exact: true }).fill('too short');
  await page.getByLabel('New password, again').fill('too short');
  await page.getByRole('button', { name: 'Set password' }).click();
  assert.equal(await heading(page, 'Accept your invitation').isVisible(), true, 'refused in the page: under 12 characters');
  await page.getByLabel('New password', { exact: true }).fill(who.password);
  await page.getByLabel('New password, again').fill(who.password);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByText(`Your password is set for ${who.email}.`).waitFor();
  await page.getByRole('link', { name: 'Now sign in' }).click();
  await page.getByLabel('Email', { exact: true }).fill(who.email);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** From inside the page, as its own script could: the session's CSRF token, then a session token. */
function sessionTokenFromPage(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const session = (await (await fetch('/dashboard/api/session')).json()) as { csrf_token: string };
    const answer = await fetch('/dashboard/api/session/token', { method: 'POST', headers: { 'x-csrf-token': session.csrf_token } });
    return ((await answer.json()) as { access_token: string }).access_token;
  });
}

test('dashboard users: invitation, TOTP enrolment, roles, reload, sign-out', async (t) => {
  const browser = await launchChromium(t);
  if (!browser) return;
  const app = await buildTestApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  app.deps.worker.start();
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const merchant = await createTestMerchant(app, 'Team shop');
  const purse = new Purse({ baseUrl: base, clientId: merchant.clientId, clientSecret: merchant.clientSecret });
  const paid = await purse.payments.create({
    reference: uniqueRef('order'),
    amount: '40.00',
    currency: 'KES',
    payment_method: { type: 'card', card: CARD_OK },
  });
  assert.equal(paid.status, 'succeeded');
  const first = await app.deps.services.users.team.invite(merchant.merchantId, { email: OWNER.email, role: 'owner' }, base, {
    operator: true,
  });
  const owner = await newPage(browser);
  const support = await newPage(browser);
  let supportLink = '';
  let totp: TOTP | null = null;
  let recoveryCodes: string[] = [];

  await t.test('the owner accepts the invitation, signs in and must enrol TOTP; the recovery codes are shown once', async () => {
    const { page } = owner;
    await acceptAndSignIn(page, first.invitation_url, OWNER, true);
    await heading(page, 'Set up two-factor authentication').waitFor();
    const secret = (await page.locator('#totp-secret').textContent()) ?? '';
    assert.match(secret, /^[A-Z2-7]+=*$/, 'the base32 secret, as text');
    const uri = (await page.locator('#totp-uri').textContent()) ?? '';
    assert.ok(uri.startsWith('otpauth://totp/') && uri.includes(`secret=${secret}`), uri);
    await page.getByRole('img', { name: 'QR code of your authenticator secret' }).waitFor();
    await assertAccessible(page, 'the TOTP enrolment page');
    totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
    await page.getByLabel('Code from the app').fill(totp.generate());
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    // allTextContents does not wait: the list comes once the server has confirmed the code.
    const list = page.getByRole('list', { name: 'Recovery codes' });
    await list.locator('code').nth(9).waitFor();
    const codes = await list.locator('code').allTextContents();
    assert.equal(codes.length, 10);
    recoveryCodes = codes;
    assert.ok(
      codes.every((code) => RECOVERY_CODE.test(code)),
      codes.join(' '),
    );
    await assertAccessible(page, 'the recovery codes');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await heading(page, 'Overview').waitFor();
    assert.equal(await page.getByRole('list', { name: 'Recovery codes' }).count(), 0, 'shown once, then gone');
  });

  await t.test('the owner sees every section and invites a support user from the Users page', async () => {
    const { page } = owner;
    for (const name of ['Users', 'Audit log', 'Webhooks', 'Account']) await nav(page).getByRole('link', { name, exact: true }).waitFor();
    await nav(page).getByRole('link', { name: 'Users', exact: true }).click();
    await heading(page, 'Users').waitFor();
    await page.getByRole('rowheader', { name: /owner@team-shop\.example/ }).waitFor();
    await page.getByLabel('Email', { exact: true }).fill(SUPPORT.email);
    await page.getByLabel('Role', { exact: true }).selectOption('support');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    supportLink = (await page.locator('.secret code').textContent()) ?? '';
    assert.match(supportLink, /^http:\/\/127\.0\.0\.1:\d+\/dashboard\/invitation#inv_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('rowheader', { name: SUPPORT.email }).waitFor();
    await assertAccessible(page, 'the Users page');
    await nav(page).getByRole('link', { name: 'Account', exact: true }).click();
    await heading(page, 'Account').waitFor();
    await page.locator('dl.fields dd', { hasText: OWNER.email }).waitFor();
    const account = await page.locator('dl.fields dd').allTextContents();
    assert.deepEqual(account.slice(0, 3), [OWNER.email, 'owner', 'On']);
    await assertAccessible(page, 'the Account page');
  });

  await t.test('signing in again asks for the second factor: a code of the app, or a recovery code', async () => {
    const { page } = owner;
    const signInAgain = async () => {
      await page.getByRole('banner').getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.getByLabel('Email', { exact: true }).fill(OWNER.email);
      await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await heading(page, 'Two-factor authentication').waitFor();
    };
    await signInAgain();
    await assertAccessible(page, 'the second-factor page');
    // The current step was spent on the enrolment; the server accepts the next one (window 1).
    assert.ok(totp);
    await page.getByLabel('Code from your authenticator app').fill(totp.generate({ timestamp: Date.now() + 30_000 }));
    await page.getByRole('button', { name: 'Continue' }).click();
    // Signed in again on the page the owner left (the Account page).
    await heading(page, 'Account').waitFor();
    await signInAgain();
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0] ?? '');
    await page.getByRole('button', { name: 'Continue' }).click();
    await heading(page, 'Account').waitFor();
  });

  await t.test('support signs in without TOTP and refunds the payment; no payout action, and a payout is refused 403', async () => {
    const { page, errors } = support;
    await acceptAndSignIn(page, supportLink, SUPPORT);
    await heading(page, 'Overview').waitFor();
    await nav(page).getByRole('link', { name: 'Account', exact: true }).waitFor();
    const links = await nav(page).getByRole('link').allTextContents();
    for (const hidden of ['Users', 'Audit log', 'Webhooks']) assert.ok(!links.includes(hidden), `${hidden} is not offered to support`);
    assert.ok(links.includes('Account'));

    await go(page, `payments/${paid.id}`);
    await page.getByRole('button', { name: 'Refund' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Confirm refund' }).click();
    await page.getByRole('table', { name: 'Refunds of this payment' }).getByText('succeeded').waitFor();
    assert.equal((await purse.payments.retrieve(paid.id)).amount_refunded, '40.00');
    assert.equal(await page.getByRole('button', { name: 'Succeed' }).count(), 0);

    await nav(page).getByRole('link', { name: 'Payouts', exact: true }).click();
    await heading(page, 'Payouts').waitFor();
    await page.getByRole('button', { name: 'Next page' }).waitFor();
    assert.equal(await page.getByText('Create a payout').count(), 0, 'no payout action for support');

    const logged = errors.length;
    const token = await sessionTokenFromPage(page);
    const refused = await page.evaluate(async (bearer) => {
      const answer = await fetch('/v1/payouts', {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          reference: 'support-payout',
          amount: '1.00',
          currency: 'KES',
          destination: { type: 'mobile_money', mobile_money: { phone_number: '+254712345678' } },
        }),
      });
      return { status: answer.status, code: ((await answer.json()) as { error: { code: string } }).error.code };
    }, token);
    assert.deepEqual(refused, { status: 403, code: 'insufficient_scope' });

    // A page the role may not read: a clear notice, not a broken page.
    await go(page, 'webhooks');
    await page.getByRole('alert').getByText('Not allowed for the support role.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add endpoint' }).count(), 0, 'no webhook-write action either');
    await eventually('both refusals logged', () => errors.length - logged >= 2);
    expectRefusedLoads(errors, logged, [403, 403]);
  });

  await t.test('a reload keeps the session; sign-out ends it, and its token stops within 5 s', async () => {
    const { page, errors } = support;
    await nav(page).getByRole('link', { name: 'Refunds', exact: true }).click();
    await heading(page, 'Refunds').waitFor();
    await page.reload();
    await heading(page, 'Refunds').waitFor();
    await page.getByText(`${SUPPORT.email} (support)`).waitFor();
    const token = await sessionTokenFromPage(page);
    const merchantWith = (bearer: string) => fetch(`${base}/v1/merchant`, { headers: { authorization: `Bearer ${bearer}` } });
    assert.equal((await merchantWith(token)).status, 200);
    await page.getByRole('banner').getByRole('button', { name: 'Sign out', exact: true }).click();
    const signedOut = Date.now();
    await page.getByText('You signed out.').waitFor();
    await eventually('the old session token is refused', async () => (await merchantWith(token)).status === 401, 5_000, 100);
    t.diagnostic(`session token refused ${Date.now() - signedOut} ms after sign-out`);
    await waitForOrExplain(page, () => page.reload(), page.getByLabel('Email', { exact: true }), 'the sign-in form after a reload');
    assert.deepEqual(errors, []);
    assert.deepEqual(owner.errors, []);
  });

  await t.test("a live merchant's client credentials are refused, and nothing is kept", async () => {
    const live = await createTestMerchant(app, 'Live shop', true);
    const { page, errors } = await newPage(browser);
    await page.goto(`${base}/dashboard`);
    await signInWithClientCredentials(page, live.clientId, live.clientSecret);
    await page.getByRole('alert').getByText('Live merchants sign in with a user account.').waitFor();
    assert.equal(await nav(page).count(), 0);
    await assertAccessible(page, 'the sign-in page');
    assert.deepEqual(errors, []);
  });
});
