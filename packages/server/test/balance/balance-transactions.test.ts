// GET /v1/balance_transactions: every movement of the merchant's funds, newest first, each
// balance_after following from the line below it (the running sum over the account in seq
// order, computed before the filters), as a cursor list and as a CSV statement.
// Refunds and payouts are not written by this service yet: their entries are inserted here as
// balanced ledger transactions against a provider account, as their postings will be.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { assertApiError } from '../helpers/bad-input.ts';
import { assertLedgerHealthy, createWallet, get, paymentBody, post, uniqueRef } from '../helpers/factories.ts';
import { bulkInsert } from './bulk.ts';

let app: TestApp;
let m: TestMerchant;
let other: TestMerchant;

interface Line {
  id: string;
  object: string;
  amount: string;
  currency: string;
  balance_after: string;
  source_type: string;
  source_id: string;
  created_at: string;
}

/** "+12.50" / "-3.00" / "7" → minor units, whatever the currency's digits (the tests use 2-digit ones). */
const minor = (text: string): bigint => {
  const [whole = '0', frac = ''] = text.replace('+', '').split('.');
  const negative = whole.startsWith('-');
  const units = BigInt(whole.replace('-', '')) * 100n + BigInt(frac.padEnd(2, '0') || '0');
  return negative ? -units : units;
};

/** A card refund of `paymentId` (its hold is the one line it writes on the funds). */
async function refund(merchant: TestMerchant, paymentId: string, amount: string) {
  const res = await post(app, merchant, '/v1/refunds', { reference: uniqueRef('re'), payment_id: paymentId, amount });
  assert.equal(res.statusCode, 201, res.body);
  assert.equal(res.json().status, 'succeeded', res.body);
  return res.json().id as string;
}

/** A payout to one of the merchant's wallets: one line on the funds. */
async function payout(merchant: TestMerchant, amount: string) {
  const wallet = await createWallet(app, merchant, 'KES');
  const res = await post(app, merchant, '/v1/payouts', {
    reference: uniqueRef('po'),
    amount,
    currency: 'KES',
    destination: { type: 'wallet', wallet: { wallet_id: wallet } },
  });
  assert.equal(res.statusCode, 201, res.body);
  assert.equal(res.json().status, 'succeeded', res.body);
  return res.json().id as string;
}

async function pay(merchant: TestMerchant, amount: string, currency = 'KES') {
  const res = await post(app, merchant, '/v1/payments', paymentBody({ amount, currency }));
  assert.equal(res.statusCode, 201, res.body);
  assert.equal(res.json().status, 'succeeded', res.body);
  return res.json().id as string;
}

async function list(merchant: TestMerchant, query = '') {
  const res = await get(app, merchant, `/v1/balance_transactions${query}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { object: string; data: Line[]; has_more: boolean };
}

/** Every page, following starting_after (newest to oldest). */
async function listAll(merchant: TestMerchant, query = '', limit = 3): Promise<Line[]> {
  const lines: Line[] = [];
  for (let cursor = ''; ; ) {
    const page = await list(merchant, `?limit=${limit}${query}${cursor}`);
    lines.push(...page.data);
    if (!page.has_more) return lines;
    cursor = `&starting_after=${page.data.at(-1)?.id}`;
  }
}

/** The unfiltered chain per currency: the oldest line follows from zero, each newer one from the one below it. */
function assertChain(lines: Array<Pick<Line, 'amount' | 'balance_after' | 'currency'>>, label: string): void {
  const running = new Map<string, bigint>();
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as Line;
    const balance = (running.get(line.currency) ?? 0n) + minor(line.amount);
    running.set(line.currency, balance);
    assert.equal(minor(line.balance_after), balance, `${label}: line ${i} ${JSON.stringify(line)}`);
  }
}

async function csv(merchant: TestMerchant, query = '', accept = 'text/csv') {
  return app.inject({ method: 'GET', url: `/v1/balance_transactions${query}`, headers: { ...merchant.auth, accept } });
}

/** CSV rows as objects of the header's columns (the fields here never need quoting). */
function parseCsv(body: string): Array<Record<string, string>> {
  assert.ok(body.endsWith('\r\n'), 'CRLF-terminated');
  const [header, ...rows] = body.slice(0, -2).split('\r\n');
  const columns = (header ?? '').split(',');
  assert.deepEqual(columns, ['id', 'created_at', 'source_type', 'source_id', 'currency', 'amount', 'balance_after']);
  return rows.map((row) => Object.fromEntries(row.split(',').map((v, i) => [columns[i] as string, v])));
}

/** A JSON line as the CSV writes it: plain signed amounts. */
const asCsv = (l: Line) => ({
  id: l.id,
  created_at: l.created_at,
  source_type: l.source_type,
  source_id: l.source_id,
  currency: l.currency,
  amount: l.amount.replace('+', ''),
  balance_after: l.balance_after,
});

let all: Line[] = [];
let refundId = '';
let payoutId = '';
let between: { gte: string; lte: string } = { gte: '', lte: '' };

before(async () => {
  app = await buildTestApp(null, { env: { PURSE_WORKER: 'false' } });
  m = await createTestMerchant(app, 'Statements merchant');
  other = await createTestMerchant(app, 'Other merchant');
  const first = await pay(m, '100.00');
  await pay(m, '250.50');
  await pay(m, '40.00', 'USD');
  await new Promise((r) => setTimeout(r, 15));
  const t0 = new Date();
  refundId = await refund(m, first, '30.50');
  await pay(m, '12.00');
  payoutId = await payout(m, '100.00');
  const t1 = new Date();
  await new Promise((r) => setTimeout(r, 15));
  await pay(m, '7.25');
  await pay(m, '1.00', 'USD');
  await pay(other, '999.00');
  await payout(other, '5.00');
  between = { gte: t0.toISOString(), lte: t1.toISOString() };
  all = await listAll(m, '', 100);
});

after(async () => {
  await assertLedgerHealthy(app);
  await app.close();
  await app.deps.close();
});

describe('the list', () => {
  test('every movement of the merchant, newest first, in the shape of the contract', async () => {
    assert.equal(all.length, 8);
    const page = await list(m);
    assert.equal(page.object, 'list');
    assert.equal(page.has_more, false);
    assert.deepEqual(page.data, all);
    const line = all.find((l) => l.source_id === payoutId) as Line;
    assert.deepEqual(Object.keys(line), ['id', 'object', 'amount', 'currency', 'balance_after', 'source_type', 'source_id', 'created_at']);
    assert.equal(line.object, 'balance_transaction');
    assert.match(line.id, /^len_[0-9a-z]{26}$/);
    assert.equal(line.amount, '-100.00');
    assert.equal(line.currency, 'KES');
    // KES: 100.00 + 250.50 - 30.50 + 12.00 - 100.00
    assert.equal(line.balance_after, '232.00');
    assert.equal(all[0]?.amount, '+1.00');
    assert.equal(all[0]?.balance_after, '41.00');
    assert.deepEqual(
      all.map((l) => l.source_type),
      ['payment', 'payment', 'payout', 'payment', 'refund', 'payment', 'payment', 'payment'],
    );
    assertChain(all, 'unfiltered');
  });

  test('the chain holds across pages in both directions', async () => {
    const forward = await listAll(m, '', 2);
    assert.deepEqual(forward, all);
    const backward: Line[] = [];
    for (let cursor = all.at(-1)?.id; ; ) {
      const page = await list(m, `?limit=2&ending_before=${cursor}`);
      backward.unshift(...page.data);
      if (!page.has_more) break;
      cursor = page.data[0]?.id;
    }
    assert.deepEqual(backward, all.slice(0, -1));
  });

  test('filters: currency, source_type, created range; balance_after stays the account balance', async () => {
    const usd = await listAll(m, '&currency=USD');
    assert.deepEqual(
      usd,
      all.filter((l) => l.currency === 'USD'),
    );
    assert.equal(usd.length, 2);
    const refunds = await listAll(m, '&source_type=refund');
    assert.deepEqual(
      refunds,
      all.filter((l) => l.source_type === 'refund'),
    );
    assert.equal(refunds[0]?.source_id, refundId);
    // 100.00 + 250.50 - 30.50: the balance of the account, not a sum of the refunds listed.
    assert.equal(refunds[0]?.balance_after, '320.00');
    const range = await listAll(m, `&created_gte=${between.gte}&created_lte=${between.lte}`);
    assert.deepEqual(
      range.map((l) => l.source_id),
      all.filter((l) => l.created_at >= between.gte && l.created_at <= between.lte).map((l) => l.source_id),
    );
    assert.equal(range.length, 3);
    assert.deepEqual(await listAll(m, '&currency=UGX'), []);
    const combined = await listAll(m, `&currency=KES&source_type=payment&created_gte=${between.gte}`);
    assert.deepEqual(
      combined.map((l) => l.amount),
      ['+7.25', '+12.00'],
    );
  });

  test('another merchant sees only its own; a foreign cursor only positions the page', async () => {
    const theirs = await listAll(other);
    assert.equal(theirs.length, 2);
    assert.ok(theirs.every((l) => !all.some((mine) => mine.id === l.id)));
    assertChain(theirs, 'other');
    const page = await list(other, `?starting_after=${all[0]?.id}`);
    assert.ok(page.data.every((l) => theirs.some((t) => t.id === l.id)));
  });

  test('bad queries are 400 with the parameter named', async () => {
    const cases: Array<[string, string, string]> = [
      ['?foo=1', 'parameter_unknown', 'foo'],
      ['?currency=kes', 'parameter_invalid', 'currency'],
      ['?currency=KESS', 'parameter_invalid', 'currency'],
      ['?source_type=transfer', 'parameter_invalid', 'source_type'],
      ['?source_type=', 'parameter_invalid', 'source_type'],
      ['?created_gte=yesterday', 'parameter_invalid', 'created_gte'],
      ['?created_lte=2026-02-30T00:00:00Z', 'parameter_invalid', 'created_lte'],
      ['?limit=0', 'parameter_invalid', 'limit'],
      ['?starting_after=wtx_01jd6x8v1ffq8v2k3m4n5p6q7r', 'parameter_invalid', 'starting_after'],
    ];
    for (const [query, code, param] of cases) {
      assertApiError(await get(app, m, `/v1/balance_transactions${query}`), { status: 400, code, param }, query);
    }
    assertApiError(await csv(m, '?limit=10'), { status: 400, code: 'parameter_invalid', param: 'limit' }, 'csv limit');
    assertApiError(
      await csv(m, `?starting_after=${all[0]?.id}`),
      { status: 400, code: 'parameter_invalid', param: 'starting_after' },
      'csv',
    );
    assertApiError(await csv(m, '?source_type=fee'), { status: 400, code: 'parameter_invalid', param: 'source_type' }, 'csv type');
  });

  test('without a token: 401', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/balance_transactions', headers: { accept: 'text/csv' } });
    assertApiError(res, { status: 401, code: 'token_missing', param: null });
  });
});

describe('the CSV statement', () => {
  test('headers, and the same rows as the list', async () => {
    const res = await csv(m);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(res.headers['content-disposition'], 'attachment; filename="balance_transactions.csv"');
    assert.deepEqual(parseCsv(res.body), all.map(asCsv));
  });

  test('Accept naming text/csv among others; JSON otherwise', async () => {
    const mixed = await csv(m, '', 'application/json;q=0.5, text/csv');
    assert.equal(mixed.headers['content-type'], 'text/csv; charset=utf-8');
    const json = await csv(m, '', 'application/json');
    assert.match(String(json.headers['content-type']), /^application\/json/);
    const wild = await csv(m, '', '*/*');
    assert.match(String(wild.headers['content-type']), /^application\/json/);
  });

  test('filters apply to the statement as to the list', async () => {
    for (const query of [
      '?currency=KES',
      '?source_type=payment',
      `?created_gte=${between.gte}&created_lte=${between.lte}`,
      '?currency=UGX',
    ]) {
      const res = await csv(m, query);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(parseCsv(res.body), (await listAll(m, `&${query.slice(1)}`, 100)).map(asCsv), query);
    }
    const theirs = parseCsv((await csv(other)).body);
    assert.equal(theirs.length, 2);
  });

  test('the chain is exact across batch boundaries, with filtered-out lines between batches', async () => {
    // 2,500 more KES entries (batches of 1,000), refunds every 7th: a source_type filter leaves
    // gaps inside and between batches that the balances must still account for.
    const db = app.deps.db.db;
    const merchant = await createTestMerchant(app, 'Batch merchant');
    await bulkInsert(db, merchant.merchantId, 2_500, 'KES');
    await pay(merchant, '5.00', 'USD');
    const lines = parseCsv((await csv(merchant)).body);
    assert.equal(lines.length, 2_501);
    assertChain(lines as unknown as Line[], 'bulk csv');
    const refunds = parseCsv((await csv(merchant, '?source_type=refund')).body);
    const expected = lines.filter((l) => l.source_type === 'refund');
    assert.ok(expected.length > 300);
    assert.deepEqual(refunds, expected);
    const paged = await listAll(merchant, '&source_type=refund', 100);
    assert.deepEqual(paged.map(asCsv), expected);
  });
});
