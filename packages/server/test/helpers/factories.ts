import assert from 'node:assert/strict';
import { isHealthy, verifyLedger } from '../../src/ledger/verify.ts';
import type { TestApp, TestMerchant } from './app.ts';

/** Test factories go through the HTTP API (and so through the services), never raw inserts. */

export const CARD_OK = { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' };
export const cardMethod = (card: Partial<typeof CARD_OK> = {}) => ({ type: 'card', card: { ...CARD_OK, ...card } });
export const mobileMethod = (phone = '+254712345000') => ({ type: 'mobile_money', mobile_money: { phone_number: phone } });
export const walletMethod = (walletId: string) => ({ type: 'wallet', wallet: { wallet_id: walletId } });

let counter = 0;
export const uniqueRef = (prefix = 'ref') => `${prefix}-${process.pid}-${Date.now()}-${++counter}`;

export async function post(app: TestApp, merchant: TestMerchant, url: string, payload: unknown) {
  return app.inject({ method: 'POST', url, headers: merchant.auth, payload: payload as object });
}

export async function get(app: TestApp, merchant: TestMerchant, url: string) {
  return app.inject({ method: 'GET', url, headers: merchant.auth });
}

export async function createWallet(app: TestApp, merchant: TestMerchant, currency = 'KES'): Promise<string> {
  const res = await post(app, merchant, '/v1/wallets', { currency });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id as string;
}

/** A wallet holding `amount` (major units), filled by a card top-up. */
export async function fundedWallet(app: TestApp, merchant: TestMerchant, amount: string, currency = 'KES'): Promise<string> {
  const walletId = await createWallet(app, merchant, currency);
  const res = await post(app, merchant, '/v1/topups', {
    reference: uniqueRef('fund'),
    amount,
    currency,
    wallet_id: walletId,
    source: cardMethod(),
  });
  assert.equal(res.statusCode, 201, res.body);
  assert.equal(res.json().status, 'succeeded', res.body);
  return walletId;
}

export function paymentBody(overrides: Record<string, unknown> = {}) {
  return { reference: uniqueRef('pay'), amount: '100.00', currency: 'KES', payment_method: cardMethod(), ...overrides };
}

/** Every ledger transaction sums to zero, cached balances equal their entries, postings match charges. */
export async function assertLedgerHealthy(app: TestApp): Promise<void> {
  const report = await verifyLedger(app.deps.db.db);
  assert.ok(isHealthy(report), `ledger unhealthy: ${JSON.stringify(report)}`);
}

/** Polls until `check` returns a truthy value or the time runs out. */
export async function waitFor<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 5_000, stepMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** Runs the settlement worker until the object leaves `pending` (tests drive it by hand). */
export async function settle(app: TestApp, merchant: TestMerchant, path: string, timeoutMs = 5_000) {
  return waitFor(async () => {
    await app.deps.worker.runOnce();
    await app.deps.outflowWorker.runOnce();
    const res = await get(app, merchant, path);
    return res.json().status !== 'pending' ? res.json() : null;
  }, timeoutMs);
}
