// Database round trips per write request, counted on the pool's clients. The payment life-cycle,
// refunds and payouts are written as single statements; a refactor that splits one (or adds a read) shows up here.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type pg from 'pg';
import { pino } from 'pino';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { buildDeps } from '../../src/deps.ts';
import { TEST_ENV } from '../helpers/app.ts';
import { openTestDb } from '../helpers/database.ts';
import { cardMethod, mobileMethod, uniqueRef, walletMethod } from '../helpers/factories.ts';

/** What one request sent: the first words of each statement, in order. */
function recorder(pool: pg.Pool) {
  let log: string[] = [];
  const wrapped = new WeakSet<object>();
  pool.on('acquire', (client) => {
    if (wrapped.has(client)) return;
    wrapped.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
      // The bearer token's lookup is cached for a while; when the cache has expired on a slow
      // run it is read again. It is the same for every request and not part of the write.
      if (!/from "access_tokens"/.test(text)) log.push(text.replace(/\s+/g, ' ').trim().slice(0, 60));
      return query(...args);
    };
  });
  return {
    async during(action: () => Promise<unknown>): Promise<string[]> {
      log = [];
      await action();
      return log;
    },
  };
}

function matches(statements: string[], expected: RegExp[]): void {
  assert.equal(statements.length, expected.length, JSON.stringify(statements));
  for (const [i, re] of expected.entries()) assert.match(statements[i] ?? '', re);
}

/** An app without the background worker (only the request's own statements are counted), a merchant, its token, and `post`. */
async function setUp(t: TestContext) {
  const config = loadConfig({ ...TEST_ENV, PURSE_WORKER: 'false' });
  const handle = await openTestDb();
  const rec = recorder(handle.pool);
  const deps = await buildDeps(config, { db: handle, logger: pino({ level: 'silent' }) });
  const app = await createApp(deps);
  await app.ready();
  t.after(async () => {
    await app.close();
    await deps.close();
  });
  const created = await deps.services.merchants.createMerchant({ name: 'Round trips', livemode: false });
  if (!created.ok) throw new Error(created.error);
  const token = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { grant_type: 'client_credentials', client_id: created.value.client_id, client_secret: created.value.client_secret },
  });
  const headers = { authorization: `Bearer ${token.json().access_token}` };
  const post = async (url: string, payload: Record<string, unknown>) => {
    const response = await app.inject({ method: 'POST', url, headers, payload });
    assert.ok(response.statusCode < 300, response.body);
    return response.json();
  };
  return { rec, post };
}

test('round trips: a wallet payment, a card claim with its settlement, a mobile-money claim, a transfer', async (t) => {
  const { rec, post } = await setUp(t);
  const wallet = await post('/v1/wallets', { currency: 'KES' });
  // Made before any recording: a statement keeps landing in the last recording until the next starts.
  const destination = await post('/v1/wallets', { currency: 'KES' });
  await post('/v1/topups', { reference: uniqueRef(), amount: '50', currency: 'KES', wallet_id: wallet.id, source: cardMethod() });

  const pay = { reference: uniqueRef(), amount: '10', currency: 'KES', payment_method: walletMethod(wallet.id) };
  const walletPayment = await rec.during(() => post('/v1/payments', pay));
  const card = await rec.during(() => post('/v1/payments', { ...pay, reference: uniqueRef(), payment_method: cardMethod() }));
  const mobile = await rec.during(() => post('/v1/payments', { ...pay, reference: uniqueRef(), payment_method: mobileMethod() }));
  const move = { reference: uniqueRef(), amount: '5', currency: 'KES', source_wallet_id: wallet.id, destination_wallet_id: destination.id };
  const transfer = await rec.during(() => post('/v1/transfers', move));
  t.diagnostic(`wallet payment: ${JSON.stringify(walletPayment)}`);
  t.diagnostic(`transfer: ${JSON.stringify(transfer)}`);
  t.diagnostic(`card payment: ${JSON.stringify(card)}`);
  t.diagnostic(`mobile money payment: ${JSON.stringify(mobile)}`);

  // Wallet: ONE statement for the debit, charge, posting, events and deliveries. The wallet's
  // merchant and currency were read once (by the top-up) and are remembered: no lookup.
  matches(walletPayment, [/^\/\* wallet payments \*\/ WITH input AS/]);
  // Transfer: the destination's first lookup (the source is known), then ONE statement for the
  // locks, debit, credit, transfer, posting, event and deliveries.
  matches(transfer, [/^select .* from "wallets"/, /^\/\* transfers \*\/ WITH input AS/]);
  // Card: the claim (charge, event, deliveries), the sandbox provider's own books (batched apart
  // from Purse's writes, as a provider's own database would), then ONE
  // statement for the final status, the posting, the event and its deliveries. Both are merged
  // writes: under load, one statement for all the claims (completions) of a batch.
  matches(card, [/^\/\* claims \*\/ WITH input AS/, /^\/\* sandbox books \*\/ WITH input AS/, /^\/\* completions \*\/ WITH input AS/]);
  // Mobile money: the claim, the sandbox provider's books, then the provider's acceptance.
  matches(mobile, [
    /^\/\* claims \*\/ WITH input AS/,
    /^\/\* sandbox books \*\/ WITH input AS/,
    /^UPDATE "charges" SET provider_reference = /,
  ]);
});

test('round trips: a wallet refund, a payout to a wallet, a card refund', async (t) => {
  const { rec, post } = await setUp(t);
  const wallet = await post('/v1/wallets', { currency: 'KES' });
  await post('/v1/topups', { reference: uniqueRef(), amount: '50', currency: 'KES', wallet_id: wallet.id, source: cardMethod() });
  const walletPaid = await post('/v1/payments', {
    reference: uniqueRef(),
    amount: '10',
    currency: 'KES',
    payment_method: walletMethod(wallet.id),
  });
  const cardPaid = await post('/v1/payments', { reference: uniqueRef(), amount: '10', currency: 'KES', payment_method: cardMethod() });
  const payout = {
    reference: uniqueRef(),
    amount: '1',
    currency: 'KES',
    destination: { type: 'wallet', wallet: { wallet_id: wallet.id } },
  };
  // Warm-up, not recorded: a merchant's first outflow in a currency creates its balance row and
  // runs the statement again; the steady state (and the bench) never takes that path.
  const warmUp = await post('/v1/payouts', payout);
  assert.equal(warmUp.status, 'succeeded');

  const walletRefund = await rec.during(() => post('/v1/refunds', { reference: uniqueRef(), payment_id: walletPaid.id, amount: '1' }));
  const payoutToWallet = await rec.during(() => post('/v1/payouts', { ...payout, reference: uniqueRef() }));
  let cardRefunded: { status?: string } = {};
  const cardRefund = await rec.during(async () => {
    cardRefunded = await post('/v1/refunds', { reference: uniqueRef(), payment_id: cardPaid.id, amount: '1' });
  });
  t.diagnostic(`wallet refund: ${JSON.stringify(walletRefund)}`);
  t.diagnostic(`payout to a wallet: ${JSON.stringify(payoutToWallet)}`);
  t.diagnostic(`card refund: ${JSON.stringify(cardRefund)}`);

  // Wallet refund: the payment lookup (batched with concurrent ones), then ONE statement (payment lock and cap, funds, wallet
  // credit, outflow, posting, events, deliveries).
  matches(walletRefund, [/^SELECT \* FROM charges WHERE id = ANY\(\$1::text\[\]\)/, /^\/\* outflows \*\/ WITH RECURSIVE input AS/]);
  // Payout to a wallet: ONE statement (the wallet is known since the warm-up; no payment: nothing in its pay CTE).
  matches(payoutToWallet, [/^\/\* outflows \*\/ WITH RECURSIVE input AS/]);
  // Card refund: the payment lookup (its provider reference goes on to the connector), the
  // statement (written pending, funds reserved), the sandbox provider's own books, then ONE
  // statement completing it (status, reserve released, posting, event, deliveries).
  assert.equal(cardRefunded.status, 'succeeded');
  matches(cardRefund, [
    /^SELECT \* FROM charges WHERE id = ANY\(\$1::text\[\]\)/,
    /^\/\* outflows \*\/ WITH RECURSIVE input AS/,
    /^\/\* sandbox books \*\/ WITH input AS/,
    /^WITH fin AS \( UPDATE outflows/,
  ]);
});
