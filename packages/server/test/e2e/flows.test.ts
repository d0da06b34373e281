import assert from 'node:assert/strict';
import { test } from 'node:test';
import { manualClock } from '../helpers/app.ts';
import { assertLedgerHealthy, CARD_OK, cardMethod, mobileMethod, uniqueRef, walletMethod } from '../helpers/factories.ts';
import { usePrivatePostgres } from '../webhooks/support.ts';
import { merchantClient, startHttpApp } from './http.ts';

// A database of its own on PostgreSQL: the database scan below reads every table, so it must see
// this file's rows only (other files plant card numbers in descriptions and metadata on purpose).
usePrivatePostgres();

test('wallet: top up by card, pay from it, see the ledger lines and the balance', async (t) => {
  const { app, base } = await startHttpApp(t);
  const { api } = await merchantClient(app, base);
  const wallet = await api.post('/v1/wallets', { currency: 'KES', holder: { name: 'Amina' } });
  assert.equal(wallet.status, 201);
  assert.equal(wallet.headers.get('location'), `/v1/wallets/${wallet.body.id}`);
  assert.equal(wallet.body.balance, '0.00');

  const topup = await api.post('/v1/topups', {
    reference: uniqueRef(),
    amount: '250.5',
    currency: 'KES',
    wallet_id: wallet.body.id,
    source: cardMethod(),
  });
  assert.equal(topup.status, 201);
  assert.equal(topup.body.status, 'succeeded');
  assert.equal(topup.body.amount, '250.50');
  assert.deepEqual(topup.body.source, {
    type: 'card',
    card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2035, three_d_secure: null },
  });

  const pay = await api.post('/v1/payments', {
    reference: uniqueRef(),
    amount: '100',
    currency: 'KES',
    payment_method: walletMethod(wallet.body.id),
  });
  assert.equal(pay.status, 201);
  assert.equal(pay.body.status, 'succeeded');
  const empty = await api.post('/v1/payments', {
    reference: uniqueRef(),
    amount: '150.51',
    currency: 'KES',
    payment_method: walletMethod(wallet.body.id),
  });
  assert.equal(empty.status, 201);
  assert.equal(empty.body.status, 'failed');
  assert.deepEqual(empty.body.failure.code, 'insufficient_funds');

  assert.equal((await api.get(`/v1/wallets/${wallet.body.id}`)).body.balance, '150.50');
  const lines = (await api.get(`/v1/wallets/${wallet.body.id}/transactions`)).body;
  assert.deepEqual(
    lines.data.map((l: any) => [l.amount, l.balance_after, l.source_type, l.source_id]),
    [
      ['-100.00', '150.50', 'payment', pay.body.id],
      ['+250.50', '250.50', 'topup', topup.body.id],
    ],
  );
  assert.deepEqual((await api.get('/v1/balance')).body.available, [{ currency: 'KES', amount: '100.00' }]);
  await assertLedgerHealthy(app);
});

test('card payments: every sandbox card gives its outcome synchronously', async (t) => {
  const { app, base } = await startHttpApp(t);
  const { api } = await merchantClient(app, base);
  const table: [string, string, string | null][] = [
    ['4242424242424242', 'succeeded', null],
    ['5555555555554444', 'succeeded', null],
    ['4000000000000002', 'failed', 'card_declined'],
    ['4000000000009995', 'failed', 'insufficient_funds'],
    ['4000000000000069', 'failed', 'expired_card'],
    ['4000000000000127', 'failed', 'incorrect_cvc'],
    ['4000000000000119', 'failed', 'processing_error'],
    ['4111111111111111', 'succeeded', null],
  ];
  for (const [number, status, code] of table) {
    const res = await api.post('/v1/payments', {
      reference: uniqueRef(),
      amount: '10.00',
      currency: 'USD',
      payment_method: cardMethod({ number }),
    });
    assert.equal(res.status, 201, number);
    assert.equal(res.body.status, status, number);
    assert.equal(res.body.failure?.code ?? null, code, number);
    assert.equal(res.body.payment_method.card.last4, number.slice(-4));
    assert.equal(JSON.stringify(res.body).includes(number), false, 'the full number never comes back');
    assert.notEqual(res.body.completed_at, null);
  }
  assert.deepEqual((await api.get('/v1/balance')).body.available, [{ currency: 'USD', amount: '30.00' }]);
  await assertLedgerHealthy(app);
});

test('mobile money: pending, then each sandbox number settles as docs/api.md §10 says', async (t) => {
  const { app, base } = await startHttpApp(t, { env: { PURSE_SANDBOX_DELAY_MS: '20', PURSE_MOBILE_MONEY_EXPIRY_S: '2' } });
  const { api } = await merchantClient(app, base);
  const table: [string, string, string | null][] = [
    ['+254712345000', 'succeeded', null],
    ['+254712345678', 'succeeded', null],
    ['+254712345001', 'failed', 'insufficient_funds'],
    ['+254712345002', 'failed', 'payer_declined'],
    ['+254712345004', 'failed', 'payer_not_found'],
    ['+254712345006', 'succeeded', null],
    ['+254712345007', 'failed', 'provider_error'],
    ['+254712345008', 'failed', 'limit_exceeded'],
  ];
  const created = await Promise.all(
    table.map(([phone]) =>
      api.post('/v1/payments', { reference: uniqueRef(), amount: '1500', currency: 'KES', payment_method: mobileMethod(phone) }),
    ),
  );
  for (const res of created) {
    assert.equal(res.status, 201);
    assert.equal(res.body.status, 'pending');
    assert.ok(res.body.expires_at, 'mobile money carries expires_at');
    assert.equal(res.body.completed_at, null);
  }
  for (let i = 0; i < table.length; i++) {
    const [phone, status, code] = table[i]!;
    const settled = await api.settled(`/v1/payments/${created[i]!.body.id}`);
    assert.equal(settled.status, status, phone);
    assert.equal(settled.failure?.code ?? null, code, phone);
    assert.equal(settled.payment_method.mobile_money.phone_number, phone);
  }
  const events = await app.deps.db.db
    .selectFrom('events')
    .select(['type', 'object_id'])
    .where('object_id', '=', created[0]!.body.id)
    .orderBy('id')
    .execute();
  assert.deepEqual(
    events.map((e) => e.type),
    ['payment.created', 'payment.succeeded'],
  );
  await assertLedgerHealthy(app);
});

test('mobile money: expired (003) and stuck (005) fail as expired at expires_at, and never flip', async (t) => {
  // The service's clock is the test's: nothing can expire until the test moves it past expires_at,
  // however slow the machine is.
  const clock = manualClock();
  const { app, base } = await startHttpApp(t, { clock, env: { PURSE_MOBILE_MONEY_EXPIRY_S: '1' } });
  const { api } = await merchantClient(app, base);
  for (const phone of ['+254712345003', '+254712345005']) {
    const res = await api.post('/v1/payments', {
      reference: uniqueRef(),
      amount: '10',
      currency: 'KES',
      payment_method: mobileMethod(phone),
    });
    assert.equal(res.body.status, 'pending');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await api.get(`/v1/payments/${res.body.id}`)).body.status, 'pending', `${phone} is still pending before expires_at`);
    clock.advance(1_100);
    const settled = await api.settled(`/v1/payments/${res.body.id}`, 4_000);
    assert.equal(settled.status, 'failed');
    assert.equal(settled.failure.code, 'expired');
    assert.ok(new Date(settled.completed_at) >= new Date(res.body.expires_at));
    // A late success at the provider is never applied: shown as late_outcome and announced.
    assert.equal(settled.late_outcome, null);
    const charge = await app.deps.db.db.selectFrom('charges').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow();
    await app.deps.settlement.applyOutcome(charge, { status: 'succeeded', providerReference: null });
    const after = (await api.get(`/v1/payments/${res.body.id}`)).body;
    assert.equal(after.status, 'failed');
    assert.equal(after.late_outcome.status, 'succeeded');
    const late = await api.get(`/v1/events?type=payment.late_outcome&object_id=${res.body.id}`);
    assert.equal(late.body.data.length, 1);
  }
  await assertLedgerHealthy(app);
});

test('top-up by mobile money credits the wallet only when it succeeds', async (t) => {
  const { app, base } = await startHttpApp(t);
  const { api } = await merchantClient(app, base);
  const wallet = (await api.post('/v1/wallets', { currency: 'UGX' })).body;
  const ok = await api.post('/v1/topups', {
    reference: uniqueRef(),
    amount: '5000',
    currency: 'UGX',
    wallet_id: wallet.id,
    source: mobileMethod('+256772000000'),
  });
  const ko = await api.post('/v1/topups', {
    reference: uniqueRef(),
    amount: '7000',
    currency: 'UGX',
    wallet_id: wallet.id,
    source: mobileMethod('+256772000002'),
  });
  assert.equal(ok.body.status, 'pending');
  assert.equal((await api.settled(`/v1/topups/${ok.body.id}`)).status, 'succeeded');
  assert.equal((await api.settled(`/v1/topups/${ko.body.id}`)).failure.code, 'payer_declined');
  assert.equal((await api.get(`/v1/wallets/${wallet.id}`)).body.balance, '5000');
  await assertLedgerHealthy(app);
});

test('frozen wallets refuse payments and top-ups; unfreeze restores them', async (t) => {
  const { app, base } = await startHttpApp(t);
  const { api } = await merchantClient(app, base);
  const wallet = (await api.post('/v1/wallets', { currency: 'KES' })).body;
  await api.post('/v1/topups', { reference: uniqueRef(), amount: '50', currency: 'KES', wallet_id: wallet.id, source: cardMethod() });
  assert.equal((await api.post(`/v1/wallets/${wallet.id}/freeze`)).body.status, 'inactive');
  const pay = await api.post('/v1/payments', {
    reference: uniqueRef(),
    amount: '10',
    currency: 'KES',
    payment_method: walletMethod(wallet.id),
  });
  assert.equal(pay.body.failure.code, 'wallet_inactive');
  const top = await api.post('/v1/topups', {
    reference: uniqueRef(),
    amount: '10',
    currency: 'KES',
    wallet_id: wallet.id,
    source: cardMethod(),
  });
  assert.equal(top.body.failure.code, 'wallet_inactive');
  assert.equal((await api.get(`/v1/wallets/${wallet.id}`)).body.balance, '50.00');
  assert.equal((await api.post(`/v1/wallets/${wallet.id}/unfreeze`)).body.status, 'active');
  const again = await api.post('/v1/payments', {
    reference: uniqueRef(),
    amount: '10',
    currency: 'KES',
    payment_method: walletMethod(wallet.id),
  });
  assert.equal(again.body.status, 'succeeded');
  await assertLedgerHealthy(app);
});

test('sandbox helpers force pending objects, only pending ones, only for sandbox merchants', async (t) => {
  const { app, base } = await startHttpApp(t, { env: { PURSE_MOBILE_MONEY_EXPIRY_S: '600' } });
  const { api } = await merchantClient(app, base);
  const stuck = (
    await api.post('/v1/payments', { reference: uniqueRef(), amount: '10', currency: 'KES', payment_method: mobileMethod('+254712345005') })
  ).body;
  const forced = await api.post(`/v1/sandbox/payments/${stuck.id}/succeed`);
  assert.equal(forced.status, 200);
  assert.equal(forced.body.status, 'succeeded');
  const again = await api.post(`/v1/sandbox/payments/${stuck.id}/fail`);
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, 'invalid_state');

  const wallet = (await api.post('/v1/wallets', { currency: 'KES' })).body;
  const top = (
    await api.post('/v1/topups', {
      reference: uniqueRef(),
      amount: '10',
      currency: 'KES',
      wallet_id: wallet.id,
      source: mobileMethod('+254712345005'),
    })
  ).body;
  const failed = await api.post(`/v1/sandbox/topups/${top.id}/fail`, { failure_code: 'limit_exceeded' });
  assert.equal(failed.body.failure.code, 'limit_exceeded');
  assert.equal((await api.get(`/v1/wallets/${wallet.id}`)).body.balance, '0.00');
  assert.equal((await api.post(`/v1/sandbox/payments/pay_01m81jrt7denf8yb3hbmsbk6m9/succeed`)).status, 404);

  const live = await app.deps.services.merchants.createMerchant({ name: 'Live', livemode: true });
  assert.ok(live.ok);
  const token = await app.deps.services.oauth.issueToken(live.value.client_id, live.value.client_secret, '127.0.0.1');
  assert.ok(token.ok);
  const res = await fetch(`${base}/v1/sandbox/payments/${stuck.id}/succeed`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.value.access_token}` },
  });
  assert.equal(res.status, 404);
  await assertLedgerHealthy(app);
});

test('a retry resumes a card payment whose first attempt died before reaching the provider', async (t) => {
  const { app, base } = await startHttpApp(t);
  const { merchant, api } = await merchantClient(app, base);
  const body = { reference: uniqueRef(), amount: '42.00', currency: 'KES', payment_method: cardMethod() };
  // Simulate a crash between the claim and the provider call: the provider throws once.
  const sandbox = app.deps.sandboxConnector;
  const original = sandbox.initiate;
  let calls = 0;
  sandbox.initiate = async (request, signal) => {
    calls++;
    if (calls === 1) throw new Error('connection reset');
    return original(request, signal);
  };
  t.after(() => {
    sandbox.initiate = original;
  });
  const first = await api.post('/v1/payments', body);
  assert.equal(first.status, 201);
  assert.equal(first.body.status, 'pending', 'an unknown outcome is pending, never failed');
  const retry = await api.post('/v1/payments', body);
  assert.equal(retry.status, 200);
  assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  assert.equal(retry.body.id, first.body.id);
  assert.equal(retry.body.status, 'succeeded', 'the retry carried the card and resumed the work');
  assert.equal(calls, 2);
  void merchant;
  await assertLedgerHealthy(app);
});

test('a mobile-money payment whose provider call died is resumed by the worker', async (t) => {
  const { app, base } = await startHttpApp(t);
  const { api } = await merchantClient(app, base);
  const sandbox = app.deps.sandboxConnector;
  const original = sandbox.initiate;
  let calls = 0;
  sandbox.initiate = async (request, signal) => {
    calls++;
    if (calls === 1) throw new Error('timeout');
    return original(request, signal);
  };
  t.after(() => {
    sandbox.initiate = original;
  });
  const res = await api.post('/v1/payments', {
    reference: uniqueRef(),
    amount: '5',
    currency: 'KES',
    payment_method: mobileMethod('+254712345000'),
  });
  assert.equal(res.body.status, 'pending');
  const settled = await api.settled(`/v1/payments/${res.body.id}`, 8_000);
  assert.equal(settled.status, 'succeeded');
  assert.equal(calls, 2);
  await assertLedgerHealthy(app);
});

test('no full card number or CVC is stored anywhere in the database', async (t) => {
  const { app, base } = await startHttpApp(t);
  const { api } = await merchantClient(app, base);
  const cvc = '987';
  const numbers = ['4242424242424242', '4000000000000002', '5555555555554444'];
  for (const number of numbers) {
    await api.post('/v1/payments', { reference: uniqueRef(), amount: '1', currency: 'KES', payment_method: cardMethod({ number, cvc }) });
  }
  const wallet = (await api.post('/v1/wallets', { currency: 'KES' })).body;
  await api.post('/v1/topups', { reference: uniqueRef(), amount: '1', currency: 'KES', wallet_id: wallet.id, source: cardMethod({ cvc }) });
  const { sql } = await import('kysely');
  // Every table of the schema, read as text row by row.
  const scan = async () => {
    const tables = await sql<{ name: string }>`
      SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(app.deps.db.db);
    const dumps = new Map<string, string>();
    for (const { name } of tables.rows) {
      const rows = await sql<{ row: string }>`SELECT t::text AS row FROM ${sql.table(name)} t`.execute(app.deps.db.db);
      dumps.set(name, rows.rows.map((r) => r.row).join('\n'));
    }
    return dumps;
  };
  const dumps = await scan();
  assert.ok(dumps.size >= 10 && dumps.has('charges') && dumps.has('events'), [...dumps.keys()].join(','));
  for (const [table, dump] of dumps) {
    for (const number of numbers) assert.equal(dump.includes(number), false, `${table} holds a full card number`);
    // A CVC would be stored as a JSON string ("987") or under a "cvc" key; digits inside timestamps are not it.
    assert.equal(dump.includes('"cvc"') || dump.includes(`"${cvc}"`), false, `${table} holds a CVC`);
  }
  // Canary: a card number the merchant itself writes into metadata is stored, and the scan finds it.
  const planted = await api.post('/v1/payments', {
    reference: uniqueRef(),
    amount: '1',
    currency: 'KES',
    payment_method: cardMethod(),
    metadata: { note: `${numbers[2]} "${cvc}"` },
  });
  assert.equal(planted.status, 201, JSON.stringify(planted.body));
  const found = [...(await scan())].filter(([, dump]) => dump.includes(numbers[2]!)).map(([table]) => table);
  assert.ok(found.includes('charges'), `the scan finds the planted number (found in: ${found.join(',') || 'nothing'})`);
  void CARD_OK;
});
