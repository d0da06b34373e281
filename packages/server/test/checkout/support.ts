// Shared by the checkout tests: a listening app, a merchant's HTTP client, sessions, and the
// session's attempts made as the hosted page makes them (checkout/attempts.ts).
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { sql } from 'kysely';
import type { AttemptMethod } from '../../src/checkout/attempts.ts';
import type { SessionRow } from '../../src/checkout/view.ts';
import { client, merchantClient, startHttpApp } from '../e2e/http.ts';
import type { TestApp, TestAppOptions } from '../helpers/app.ts';
import { uniqueRef } from '../helpers/factories.ts';

export { client, merchantClient, startHttpApp };

export const sessionBody = (overrides: Record<string, unknown> = {}) => ({
  reference: uniqueRef('cs'),
  amount: '10.50',
  currency: 'KES',
  success_url: 'https://shop.example/paid',
  cancel_url: 'https://shop.example/cart',
  ...overrides,
});

export const card = (number = '4242424242424242', extra: Record<string, unknown> = {}): AttemptMethod =>
  ({ type: 'card', card: { number, exp_month: 12, exp_year: 2035, cvc: '123', ...extra } }) as AttemptMethod;
export const mobile = (phone = '+254712345000'): AttemptMethod => ({ type: 'mobile_money', mobile_money: { phone_number: phone } });

/** The session's row, as the page reads it. */
export async function sessionRow(app: TestApp, id: string): Promise<SessionRow> {
  const row = await app.deps.db.db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirst();
  assert.ok(row, `no session ${id}`);
  return row;
}

let addressCounter = 0;
/** One attempt as the page makes it, from an address of its own unless given. */
export async function attempt(app: TestApp, sessionId: string, method: AttemptMethod, address = `10.9.${++addressCounter % 250}.1`) {
  return app.deps.services.checkoutAttempts.pay(await sessionRow(app, sessionId), method, address);
}

/** Moves a session's expiry into the past (the time a test cannot wait for). */
export async function expireByTime(app: TestApp, id: string): Promise<void> {
  await sql`UPDATE checkout_sessions SET expires_at = now() - interval '1 second' WHERE id = ${id}`.execute(app.deps.db.db);
}

export async function checkoutApp(t: TestContext, options: TestAppOptions = {}) {
  const { app, base } = await startHttpApp(t, options);
  const { merchant, api } = await merchantClient(app, base, 'Checkout merchant');
  return { app, base, merchant, api };
}

export async function eventTypes(api: ReturnType<typeof client>, objectId: string): Promise<string[]> {
  const res = await api.get(`/v1/events?object_id=${objectId}`);
  assert.equal(res.status, 200);
  return (res.body.data as Array<{ type: string }>).map((e) => e.type).sort();
}

/**
 * Pays a session on its hosted page as a browser without script would: GET the page (its cookie
 * and the form's CSRF field), POST the form, follow the redirect. `base` replaces the URL's origin
 * (test apps listen on a port of their own). Answers the page reached.
 */
export async function payOnPage(base: string, sessionUrl: string, form: Record<string, string>): Promise<{ status: number; html: string }> {
  const path = new URL(sessionUrl).pathname;
  const first = await fetch(base + path);
  const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const csrf = /name="csrf" value="([^"]+)"/.exec(await first.text())?.[1] ?? '';
  const posted = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ csrf, ...form }).toString(),
    redirect: 'manual',
  });
  if (posted.status !== 303) return { status: posted.status, html: await posted.text() };
  const next = await fetch(base + (posted.headers.get('location') ?? path), { headers: { cookie } });
  return { status: next.status, html: await next.text() };
}
