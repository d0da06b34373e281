// A wallet's statement reads as a running balance (docs/api.md §6): its transactions, newest
// first, in the order the debits and credits were applied, so each balance_after is the one
// below it plus its amount. Concurrent moves of one wallet are where the order can go wrong:
// their ids and times are taken before they queue on the wallet's row lock. On PostgreSQL the
// rounds race for real; on PGlite they run one at a time and the chain must hold all the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from '../../src/shared/ids.ts';
import { minorUnits, reportFigures } from '../concurrency/support.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { assertLedgerHealthy, cardMethod, fundedWallet, get, post, uniqueRef, walletMethod } from '../helpers/factories.ts';

const database = testDatabaseUrl() ? 'postgres' : 'pglite';
/** Rounds per scenario, each on a fresh wallet: one race may happen to queue in request order. */
const ROUNDS = 6;
/** Small pages, so the chain crosses many cursors. */
const PAGE = 3;

interface Line {
  id: string;
  amount: string;
  balance_after: string;
}

async function listPage(app: TestApp, m: TestMerchant, walletId: string, cursor: string) {
  const res = await get(app, m, `/v1/wallets/${walletId}/transactions?limit=${PAGE}${cursor}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { data: Line[]; has_more: boolean };
}

/** Every line, newest first, following starting_after from the newest page to the oldest. */
async function readForward(app: TestApp, m: TestMerchant, walletId: string): Promise<Line[]> {
  const lines: Line[] = [];
  for (let cursor = ''; ; ) {
    const page = await listPage(app, m, walletId, cursor);
    lines.push(...page.data);
    if (!page.has_more) return lines;
    cursor = `&starting_after=${page.data.at(-1)?.id}`;
  }
}

/** Every line newer than `oldest`, newest first, following ending_before up from the oldest. */
async function readBackward(app: TestApp, m: TestMerchant, walletId: string, oldest: string): Promise<Line[]> {
  const lines: Line[] = [];
  for (let cursor = oldest; ; ) {
    const page = await listPage(app, m, walletId, `&ending_before=${cursor}`);
    lines.unshift(...page.data);
    if (!page.has_more || page.data.length === 0) return lines;
    cursor = page.data[0]?.id ?? '';
  }
}

/** Oldest follows from zero, each newer line from the one below it, the newest is the balance. */
function assertChain(lines: Line[], balance: string, label: string): void {
  let running = 0n;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as Line;
    running += minorUnits(line.amount);
    const shown = lines.map((l) => `${l.amount}→${l.balance_after}`).join(' ');
    assert.equal(minorUnits(line.balance_after), running, `${label}: line ${lines.length - i} from the oldest breaks the chain: ${shown}`);
  }
  assert.equal(running, minorUnits(balance), `${label}: the newest line is not the wallet's balance`);
}

async function assertStatement(app: TestApp, m: TestMerchant, walletId: string, label: string): Promise<number> {
  const balance = (await get(app, m, `/v1/wallets/${walletId}`)).json().balance as string;
  const forward = await readForward(app, m, walletId);
  assertChain(forward, balance, `${label} (starting_after)`);
  const oldest = forward.at(-1) as Line;
  const backward = [...(await readBackward(app, m, walletId, oldest.id)), oldest];
  assert.deepEqual(
    backward.map((l) => l.id),
    forward.map((l) => l.id),
    `${label}: ending_before pages list the same lines in the same order`,
  );
  assertChain(backward, balance, `${label} (ending_before)`);
  return forward.length;
}

const pay = (app: TestApp, m: TestMerchant, walletId: string) =>
  post(app, m, '/v1/payments', { reference: uniqueRef('order'), amount: '3.00', currency: 'KES', payment_method: walletMethod(walletId) });

const topUp = (app: TestApp, m: TestMerchant, walletId: string) =>
  post(app, m, '/v1/topups', { reference: uniqueRef('fill'), amount: '2.00', currency: 'KES', wallet_id: walletId, source: cardMethod() });

test('8 concurrent 3.00 payments on a 10.00 wallet: the statement is a running balance', async (t) => {
  const app = await buildTestApp(t, { env: { PURSE_WORKER: 'false' } });
  const m = await createTestMerchant(app, 'Statement order');
  let lines = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const walletId = await fundedWallet(app, m, '10.00');
    const results = await Promise.all(Array.from({ length: 8 }, () => pay(app, m, walletId)));
    const succeeded = results.filter((r) => r.statusCode === 201 && r.json().status === 'succeeded').length;
    assert.equal(succeeded, 3, 'exactly three payments of 3.00 fit in 10.00');
    lines += await assertStatement(app, m, walletId, `payments, round ${round}`);
  }
  reportFigures(t, `statement order, payments (${database})`, { rounds: ROUNDS, lines });
  await assertLedgerHealthy(app);
});

test('concurrent card top-ups mixed with payments: the statement is a running balance', async (t) => {
  const app = await buildTestApp(t, { env: { PURSE_WORKER: 'false' } });
  const m = await createTestMerchant(app, 'Statement order, mixed');
  let lines = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const walletId = await fundedWallet(app, m, '10.00');
    const requests = Array.from({ length: 14 }, (_, i) => (i % 2 === 0 ? topUp(app, m, walletId) : pay(app, m, walletId)));
    for (const res of await Promise.all(requests)) assert.equal(res.statusCode, 201, res.body);
    lines += await assertStatement(app, m, walletId, `mixed, round ${round}`);
  }
  reportFigures(t, `statement order, mixed (${database})`, { rounds: ROUNDS, lines });
  await assertLedgerHealthy(app);
});

test('a cursor that is no line of this wallet positions by its age and never shows the other line', async (t) => {
  const app = await buildTestApp(t, { env: { PURSE_WORKER: 'false' } });
  const m = await createTestMerchant(app, 'Statement cursors');
  const walletId = await fundedWallet(app, m, '10.00');
  assert.equal((await pay(app, m, walletId)).statusCode, 201);
  const own = (await readForward(app, m, walletId)).map((l) => l.id);
  const otherWallet = await fundedWallet(app, m, '5.00');
  const otherLine = (await readForward(app, m, otherWallet))[0]?.id as string;
  const unknown = newId('walletTransaction');
  for (const [query, expected] of [
    [`starting_after=${unknown}`, own],
    [`ending_before=${unknown}`, []],
    [`starting_after=${otherLine}`, own],
    [`ending_before=${otherLine}`, []],
  ] as const) {
    const res = await get(app, m, `/v1/wallets/${walletId}/transactions?${query}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.json().data.map((l: Line) => l.id),
      expected,
      query,
    );
  }
});
