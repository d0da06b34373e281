// Group commit's promises (src/db/group-commit.ts), as scenarios the test file asserts and the
// negative controls (test/negative-control.ts) run against the deliberately broken batcher: each
// returns what it saw and whether that is right, so the same check can be shown able to fail.
//
// Deterministic batches: every payment of a scenario is submitted to the charge service in one
// synchronous run (no await between them), with wallets whose identity is already known (no
// lookup), so each reaches its lane before the lane forms its next batch (it waits one turn of
// the event loop first). One lane (PURSE_GROUP_COMMIT_LANES=1): every statement is in that batch.
import { sql } from 'kysely';
import type pg from 'pg';
import type { ChargeBody } from '../../src/charges/prepare.ts';
import type { ChargeReader } from '../../src/charges/store/read.ts';
import type { ChargeRow } from '../../src/charges/view.ts';
import { walletAccount } from '../../src/ledger/accounts.ts';
import { isHealthy, verifyLedger } from '../../src/ledger/verify.ts';
import type { AuthContext } from '../../src/oauth/service.ts';
import { createOutflowService, type OutflowService } from '../../src/outflows/service.ts';
import { ApiError } from '../../src/shared/errors.ts';
import { createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { cardMethod, fundedWallet, get, post, uniqueRef, walletMethod } from '../helpers/factories.ts';

export const GROUP_COMMIT_ENV = { PURSE_GROUP_COMMIT_LANES: '1', PURSE_WORKER: 'false' };

export interface Verdict {
  ok: boolean;
  seen: unknown;
}

/** Batches run so far, by whether they fell back: [count, sum of sizes]. */
async function batchFigures(app: TestApp): Promise<Record<'fellBack' | 'committed', { batches: number; statements: number }>> {
  const metric = await app.deps.metrics.registry.getSingleMetric('purse_group_commit_batch_size')?.get();
  const figure = (suffix: string, fellBack: string) =>
    Number(
      metric?.values.find(
        (v) => (v as { metricName?: string }).metricName === `purse_group_commit_batch_size_${suffix}` && v.labels.fell_back === fellBack,
      )?.value ?? 0,
    );
  return {
    fellBack: { batches: figure('count', 'true'), statements: figure('sum', 'true') },
    committed: { batches: figure('count', 'false'), statements: figure('sum', 'false') },
  };
}

/** What ran between two readings of batchFigures: committed batches, their statements, and batches that fell back. */
function batchesBetween(
  before: Awaited<ReturnType<typeof batchFigures>>,
  after: Awaited<ReturnType<typeof batchFigures>>,
): { batches: number; statements: number; fellBack: number } {
  return {
    batches: after.committed.batches - before.committed.batches,
    statements: after.committed.statements - before.committed.statements,
    fellBack: after.fellBack.batches - before.fellBack.batches,
  };
}

async function authOf(app: TestApp, merchant: TestMerchant): Promise<AuthContext> {
  const result = await app.deps.services.oauth.authenticate(merchant.token);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

const paymentBody = (walletId: string, amount: string, reference = uniqueRef('gc')): ChargeBody =>
  ({ reference, amount, currency: 'KES', method: walletMethod(walletId), methodParam: 'payment_method' }) as unknown as ChargeBody;

/** Each submission's outcome: the payment's status (and failure code, or "replay"), or the error's code. */
async function outcomes(
  submitted: Promise<{ created: boolean; object: { id: string; status: string; failure: { code: string } | null } }>[],
) {
  const settled = await Promise.allSettled(submitted);
  return settled.map((s) => {
    if (s.status === 'rejected') return s.reason instanceof ApiError ? `error:${s.reason.code}` : `error:${String(s.reason)}`;
    const { created, object } = s.value;
    return `${created ? '' : 'replay:'}${object.status}${object.failure ? `:${object.failure.code}` : ''}`;
  });
}

async function walletBalance(app: TestApp, merchant: TestMerchant, walletId: string): Promise<string> {
  const response = await app.inject({ method: 'GET', url: `/v1/wallets/${walletId}`, headers: merchant.auth });
  return (response.json() as { balance: string }).balance;
}

/**
 * One batch mixing a success, a replay, a reference conflict, insufficient funds, a frozen
 * wallet and another success: each gets its own outcome, and only the successes move money.
 */
export async function mixedBatch(app: TestApp): Promise<Verdict> {
  const merchant = await createTestMerchant(app, 'Group commit, mixed');
  const auth = await authOf(app, merchant);
  const wallet = await fundedWallet(app, merchant, '100.00');
  const frozen = await fundedWallet(app, merchant, '100.00');
  await post(app, merchant, `/v1/wallets/${frozen}/freeze`, {});
  const taken = uniqueRef('gc-taken');
  // Known wallets (no lookup in the batch) and a reference already used.
  const first = await app.deps.services.charges.createCharge(auth, 'payment', paymentBody(wallet, '1.00', taken));
  await app.deps.services.charges.createCharge(auth, 'payment', paymentBody(frozen, '1.00')).catch(() => {});
  const before = await batchFigures(app);
  const charges = app.deps.services.charges;
  const seen = await outcomes([
    charges.createCharge(auth, 'payment', paymentBody(wallet, '10.00')),
    charges.createCharge(auth, 'payment', paymentBody(wallet, '1.00', taken)),
    charges.createCharge(auth, 'payment', paymentBody(wallet, '2.00', taken)),
    charges.createCharge(auth, 'payment', paymentBody(wallet, '500.00')),
    charges.createCharge(auth, 'payment', paymentBody(frozen, '1.00')),
    charges.createCharge(auth, 'payment', paymentBody(wallet, '5.00')),
  ]);
  const after = await batchFigures(app);
  const balance = await walletBalance(app, merchant, wallet);
  const expected = [
    'succeeded',
    'replay:succeeded',
    'error:reference_conflict',
    'failed:insufficient_funds',
    'failed:wallet_inactive',
    'succeeded',
  ];
  const batches = {
    fellBack: after.fellBack.batches - before.fellBack.batches,
    statements: after.fellBack.statements - before.fellBack.statements,
  };
  const ok =
    JSON.stringify(seen) === JSON.stringify(expected) &&
    balance === '84.00' &&
    first.object.status === 'succeeded' &&
    // One batch of the six, undone by the replays' unique violations, then each alone.
    batches.fellBack === 1 &&
    batches.statements === 6;
  return { ok, seen: { outcomes: seen, expected, balance, batches } };
}

async function available(app: TestApp, merchant: TestMerchant): Promise<string> {
  const res = await get(app, merchant, '/v1/balance');
  return (
    (res.json() as { available: { currency: string; amount: string }[] }).available.find((a) => a.currency === 'KES')?.amount ?? '0.00'
  );
}

/**
 * One merged statement for payments of two merchants from five wallets (distinct: one statement):
 * each its own outcome, its own charge, both its events with the payload of its outcome, a
 * delivery per event for the merchant's endpoint and for the payment's callback URL, a balanced
 * posting only when it succeeded, and each merchant credited exactly its own successes.
 */
export async function mergedStatement(app: TestApp): Promise<Verdict> {
  const first = await createTestMerchant(app, 'Group commit, merged A');
  const second = await createTestMerchant(app, 'Group commit, merged B');
  const [authA, authB] = [await authOf(app, first), await authOf(app, second)];
  const endpoint = await post(app, first, '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/merged' });
  if (endpoint.statusCode !== 201) return { ok: false, seen: { endpoint: endpoint.body } };
  const [a1, a2, poor, frozen] = [
    await fundedWallet(app, first, '50.00'),
    await fundedWallet(app, first, '50.00'),
    await fundedWallet(app, first, '1.00'),
    await fundedWallet(app, first, '50.00'),
  ];
  const b1 = await fundedWallet(app, second, '50.00');
  await post(app, first, `/v1/wallets/${frozen}/freeze`, {});
  // Known wallets: no lookup in the batch.
  for (const [auth, w] of [
    [authA, a1],
    [authA, a2],
    [authA, poor],
    [authB, b1],
  ] as const)
    await app.deps.services.charges.createCharge(auth, 'payment', paymentBody(w, '0.50'));
  await app.deps.services.charges.createCharge(authA, 'payment', paymentBody(frozen, '0.50')).catch(() => {});
  const before = { figures: await batchFigures(app), a: await available(app, first), b: await available(app, second) };
  const charges = app.deps.services.charges;
  const withCallback = {
    ...paymentBody(a2, '7.25'),
    callback_url: 'http://127.0.0.1:9/callback',
    description: 'with callback',
  } as ChargeBody;
  const submitted = [
    charges.createCharge(authA, 'payment', paymentBody(a1, '10.00')),
    charges.createCharge(authA, 'payment', withCallback),
    charges.createCharge(authA, 'payment', paymentBody(poor, '5.00')),
    charges.createCharge(authB, 'payment', paymentBody(b1, '3.10')),
    charges.createCharge(authA, 'payment', paymentBody(frozen, '1.00')),
  ];
  const seen = await outcomes(submitted);
  const figures = await batchFigures(app);
  const answers = (await Promise.all(submitted)).map((c) => c.object);
  const details = [];
  for (const [i, answer] of answers.entries()) {
    const merchant = i === 3 ? second : first;
    const stored = (await get(app, merchant, `/v1/payments/${answer.id}`)).json();
    const events = (await get(app, merchant, `/v1/events?object_id=${answer.id}`)).json().data as {
      id: string;
      type: string;
      data: { object: { status: string } };
    }[];
    const deliveries = await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_deliveries
      WHERE event_id IN (SELECT id FROM events WHERE object_id = ${answer.id})`.execute(app.deps.db.db);
    const postings = await sql<{ n: string; total: string }>`SELECT count(DISTINCT t.id) AS n, coalesce(sum(e.amount), 0) AS total
      FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id WHERE t.source_id = ${answer.id}`.execute(app.deps.db.db);
    details.push({
      same: JSON.stringify(stored) === JSON.stringify(answer),
      events: events.map((e) => `${e.type}:${e.data.object.status}`).sort(),
      finalPayload: JSON.stringify(events.find((e) => e.type !== 'payment.created')?.data.object) === JSON.stringify(answer),
      deliveries: Number(deliveries.rows[0]?.n),
      postings: Number(postings.rows[0]?.n),
      postingTotal: postings.rows[0]?.total,
    });
  }
  const expected = ['succeeded', 'succeeded', 'failed:insufficient_funds', 'succeeded', 'failed:wallet_inactive'];
  const expectedDetails = [
    { events: ['payment.created:pending', 'payment.succeeded:succeeded'], deliveries: 2, postings: 1 },
    { events: ['payment.created:pending', 'payment.succeeded:succeeded'], deliveries: 4, postings: 1 },
    { events: ['payment.created:pending', 'payment.failed:failed'], deliveries: 2, postings: 0 },
    { events: ['payment.created:pending', 'payment.succeeded:succeeded'], deliveries: 0, postings: 1 },
    { events: ['payment.created:pending', 'payment.failed:failed'], deliveries: 2, postings: 0 },
  ];
  const after = { a: await available(app, first), b: await available(app, second) };
  const credited = { a: (Number(after.a) - Number(before.a)).toFixed(2), b: (Number(after.b) - Number(before.b)).toFixed(2) };
  const ledger = await verifyLedger(app.deps.db.db);
  const batch = batchesBetween(before.figures, figures);
  const ok =
    JSON.stringify(seen) === JSON.stringify(expected) &&
    details.every(
      (d, i) =>
        d.same &&
        d.finalPayload &&
        d.postingTotal === '0' &&
        JSON.stringify({ events: d.events, deliveries: d.deliveries, postings: d.postings }) === JSON.stringify(expectedDetails[i]),
    ) &&
    credited.a === '17.25' &&
    credited.b === '3.10' &&
    isHealthy(ledger) &&
    batch.batches === 1 &&
    batch.statements === 5 &&
    batch.fellBack === 0;
  return { ok, seen: { outcomes: seen, details, credited, batch, ledger: isHealthy(ledger) } };
}

/**
 * Card payments and top-ups through the merged claims and completions: one statement of four
 * claims where one reference is a replay and one is taken by a different request (no row for
 * either: the replay answers the stored payment, the other 409), each new payment settled with
 * its own events and posting; two card top-ups of one wallet (its completions never share a
 * statement: the second credits the balance the first left). Nothing falls back; the ledger,
 * every wallet's running balance included, stays whole.
 */
export async function mergedClaimsAndCompletions(app: TestApp): Promise<Verdict> {
  const merchant = await createTestMerchant(app, 'Group commit, claims');
  const auth = await authOf(app, merchant);
  const wallet = await fundedWallet(app, merchant, '1.00');
  const charges = app.deps.services.charges;
  const card = (reference: string, amount: string): ChargeBody =>
    ({ reference, amount, currency: 'KES', method: cardMethod(), methodParam: 'payment_method' }) as unknown as ChargeBody;
  const topup = (amount: string): ChargeBody =>
    ({
      reference: uniqueRef('gc-top'),
      amount,
      currency: 'KES',
      walletId: wallet,
      method: cardMethod(),
      methodParam: 'source',
    }) as unknown as ChargeBody;
  const taken = uniqueRef('gc-card');
  const first = await charges.createCharge(auth, 'payment', card(taken, '4.00'));
  const before = await batchFigures(app);
  const submitted = [
    charges.createCharge(auth, 'payment', card(uniqueRef('gc-card'), '1.00')),
    charges.createCharge(auth, 'payment', card(uniqueRef('gc-card'), '2.00')),
    charges.createCharge(auth, 'payment', card(taken, '4.00')),
    charges.createCharge(auth, 'payment', card(taken, '5.00')),
  ];
  const seen = await outcomes(submitted);
  const tops = await outcomes([charges.createCharge(auth, 'topup', topup('3.00')), charges.createCharge(auth, 'topup', topup('4.50'))]);
  const after = await batchFigures(app);
  const answers = (await Promise.allSettled(submitted)).flatMap((s) =>
    s.status === 'fulfilled' && s.value.created ? [s.value.object] : [],
  );
  const events = [];
  for (const answer of answers) {
    const listed = (await get(app, merchant, `/v1/events?object_id=${answer.id}`)).json().data as { type: string }[];
    events.push(listed.map((e) => e.type).sort());
  }
  const balance = await walletBalance(app, merchant, wallet);
  const ledger = await verifyLedger(app.deps.db.db);
  const expected = ['succeeded', 'succeeded', 'replay:succeeded', 'error:reference_conflict'];
  const fellBack = after.fellBack.batches - before.fellBack.batches;
  const ok =
    first.object.status === 'succeeded' &&
    JSON.stringify(seen) === JSON.stringify(expected) &&
    JSON.stringify(tops) === JSON.stringify(['succeeded', 'succeeded']) &&
    events.length === 2 &&
    events.every((types) => JSON.stringify(types) === JSON.stringify(['payment.created', 'payment.succeeded'])) &&
    balance === '8.50' &&
    isHealthy(ledger) &&
    fellBack === 0;
  return { ok, seen: { outcomes: seen, expected, tops, events, balance, fellBack, ledger: isHealthy(ledger) } };
}

/** One batch of payments from one wallet: applied in arrival order against the running balance. */
export async function sameWalletInOrder(app: TestApp): Promise<Verdict> {
  const merchant = await createTestMerchant(app, 'Group commit, one wallet');
  const auth = await authOf(app, merchant);
  const wallet = await fundedWallet(app, merchant, '11.00');
  await app.deps.services.charges.createCharge(auth, 'payment', paymentBody(wallet, '1.00'));
  const before = await batchFigures(app);
  const charges = app.deps.services.charges;
  const seen = await outcomes(
    ['6.00', '5.00', '3.00', '1.00'].map((amount) => charges.createCharge(auth, 'payment', paymentBody(wallet, amount))),
  );
  const after = await batchFigures(app);
  const balance = await walletBalance(app, merchant, wallet);
  // 10.00: 6 fits (4 left), 5 does not, 3 fits (1 left), 1 fits (0 left).
  const expected = ['succeeded', 'failed:insufficient_funds', 'succeeded', 'succeeded'];
  const batch = {
    batches: after.committed.batches - before.committed.batches,
    statements: after.committed.statements - before.committed.statements,
  };
  const ok = JSON.stringify(seen) === JSON.stringify(expected) && balance === '0.00' && batch.batches === 1 && batch.statements === 4;
  return { ok, seen: { outcomes: seen, expected, balance, batch } };
}

/**
 * No answer before COMMIT, and a batch that dies with its connection leaves nothing: a batch of
 * two payments from one wallet (two statements, the second after the first: a transaction) whose
 * COMMIT this scenario holds back (on the pool's connection, so on either database); while it is
 * held both statements have run but neither may be answered; then the connection "dies": the
 * transaction is rolled back and COMMIT fails as a lost connection does. Both fail, neither is
 * stored, no money moved. (A batch of payments from different wallets is one statement, atomic
 * by itself, with no COMMIT of its own to hold.)
 */
export async function noAnswerBeforeCommit(app: TestApp): Promise<Verdict> {
  const merchant = await createTestMerchant(app, 'Group commit, commit');
  const auth = await authOf(app, merchant);
  const wallet = await fundedWallet(app, merchant, '10.00');
  const charges = app.deps.services.charges;
  await charges.createCharge(auth, 'payment', paymentBody(wallet, '1.00'));

  let armed = true;
  let loseConnection: (() => void) | null = null;
  const wrapped = new WeakSet<object>();
  const holdCommit = (client: pg.PoolClient) => {
    if (wrapped.has(client)) return;
    wrapped.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      if (!(armed && args[0] === 'COMMIT')) return query(...args);
      armed = false;
      return new Promise((_resolve, reject) => {
        loseConnection = () => {
          query('ROLLBACK').then(() => reject(new Error('Connection terminated unexpectedly (the test dropped it)')), reject);
        };
      });
    };
  };
  const pool = app.deps.db.pool;
  pool.on('acquire', holdCommit);
  try {
    const references = [uniqueRef('gc-a'), uniqueRef('gc-b')];
    let answered = false;
    const submitted = references.map((reference) =>
      charges.createCharge(auth, 'payment', paymentBody(wallet, '2.00', reference)).finally(() => {
        answered = true;
      }),
    );
    // Until the batch's COMMIT is held: both statements have run, uncommitted.
    for (let i = 0; i < 400 && loseConnection === null; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const held = loseConnection !== null;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const answeredWhileHeld = answered;
    (loseConnection as (() => void) | null)?.();
    const seen = await outcomes(submitted);
    const stored = await sql<{ n: string }>`SELECT count(*) AS n FROM charges WHERE reference IN (${sql.join(references)})`.execute(
      app.deps.db.db,
    );
    const balance = await walletBalance(app, merchant, wallet);
    const ok =
      held && !answeredWhileHeld && seen.every((s) => s.startsWith('error:')) && Number(stored.rows[0]?.n) === 0 && balance === '9.00';
    return { ok, seen: { held, answeredWhileHeld, outcomes: seen, stored: stored.rows[0]?.n, balance } };
  } finally {
    pool.off('acquire', holdCommit);
  }
}

/**
 * An outflow service whose payment lookups answer at once from rows read earlier (`known`), so
 * every refund of a scenario reaches the lane in the same turn and they share one batch. Rows
 * read before a later refund are stale: the statement, deciding on the locked row, must refuse.
 */
function outflowsKnowing(app: TestApp, known: ChargeRow[]): OutflowService {
  const rows = new Map(known.map((row) => [row.id, row]));
  const reader: ChargeReader = {
    load: async ({ id, merchantId }) => {
      const row = rows.get(id);
      return row?.merchant_id === merchantId ? row : undefined;
    },
  };
  const d = app.deps;
  return createOutflowService({
    db: d.db.db,
    groupCommit: d.groupCommit,
    chargeReader: reader,
    writes: d.writes,
    clock: d.clock,
    config: d.config,
    hashKey: d.hashKey,
    registry: d.registry,
    settlement: d.outflowSettlement,
  });
}

async function chargeRows(app: TestApp, ids: string[]): Promise<ChargeRow[]> {
  return (await app.deps.db.db.selectFrom('charges').selectAll().where('id', 'in', ids).execute()) as ChargeRow[];
}

type RefundArgs = Parameters<OutflowService['createRefund']>[1];
type PayoutArgs = Parameters<OutflowService['createPayout']>[1];
const refundBody = (paymentId: string, amount: string, extra: Record<string, unknown> = {}) =>
  ({ reference: uniqueRef('gc-refund'), payment_id: paymentId, amount, ...extra }) as RefundArgs;
const payoutBody = (walletId: string, amount: string) =>
  ({
    reference: uniqueRef('gc-payout'),
    amount,
    currency: 'KES',
    destination: { type: 'wallet', wallet: { wallet_id: walletId } },
  }) as PayoutArgs;

/**
 * One merged statement of outflows of two merchants: two refunds to one wallet (its credits summed,
 * each line with its own balance after and seq, in arrival order), a refund the payment's locked
 * row refuses (the lookup was stale: amount_too_large, nothing written), a payout to a wallet, a
 * payout to a frozen wallet (failed, written), a card refund (held, then the provider's answer),
 * another merchant's refund, and a second refund of the first payment (its own statement, after
 * the first: it sees that refund). Each its own outcome, events, deliveries and postings; the
 * funds, wallets and payments move by exactly the successes; nothing falls back.
 */
export async function mergedOutflows(app: TestApp): Promise<Verdict> {
  const first = await createTestMerchant(app, 'Group commit, outflows A');
  const second = await createTestMerchant(app, 'Group commit, outflows B');
  const [authA, authB] = [await authOf(app, first), await authOf(app, second)];
  const endpoint = await post(app, first, '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/outflows' });
  if (endpoint.statusCode !== 201) return { ok: false, seen: { endpoint: endpoint.body } };
  const [w1, w2, frozen] = [
    await fundedWallet(app, first, '50.00'),
    await fundedWallet(app, first, '50.00'),
    await fundedWallet(app, first, '5.00'),
  ];
  const wb = await fundedWallet(app, second, '50.00');
  const pay = async (merchant: TestMerchant, method: unknown, amount: string) => {
    const res = await post(app, merchant, '/v1/payments', {
      reference: uniqueRef('gc-paid'),
      amount,
      currency: 'KES',
      payment_method: method,
    });
    return (res.json() as { id: string; status: string }).id;
  };
  const [p1, p2, p3, card] = [
    await pay(first, walletMethod(w1), '10.00'),
    await pay(first, walletMethod(w1), '10.00'),
    await pay(first, walletMethod(w2), '5.00'),
    await pay(first, cardMethod(), '10.00'),
  ];
  const pb = await pay(second, walletMethod(wb), '10.00');
  // Warm-ups: each merchant's first outflow creates its balance row, and makes the wallets known.
  const service = app.deps.services.outflows;
  for (const [auth, wallet] of [
    [authA, w2],
    [authA, frozen],
    [authB, wb],
  ] as const)
    await service.createPayout(auth, payoutBody(wallet, '0.01'));
  await post(app, first, `/v1/wallets/${frozen}/freeze`, {});
  const stale = await chargeRows(app, [p1, p2, p3, card, pb]);
  await service.createRefund(authA, refundBody(p3, '4.00'));
  const balances = async () => ({
    w1: await walletBalance(app, first, w1),
    w2: await walletBalance(app, first, w2),
    frozen: await walletBalance(app, first, frozen),
    wb: await walletBalance(app, second, wb),
    a: await available(app, first),
    b: await available(app, second),
  });
  const before = { figures: await batchFigures(app), balances: await balances() };
  const outflows = outflowsKnowing(app, stale);
  const submitted = [
    outflows.createRefund(authA, refundBody(p1, '4.00')),
    outflows.createRefund(authA, refundBody(p2, '3.00', { callback_url: 'http://127.0.0.1:9/refund-callback' })),
    outflows.createRefund(authA, refundBody(p3, '2.00')),
    outflows.createPayout(authA, payoutBody(w2, '1.50')),
    outflows.createPayout(authA, payoutBody(frozen, '1.00')),
    outflows.createRefund(authA, refundBody(card, '1.00')),
    outflows.createRefund(authB, refundBody(pb, '2.00')),
    outflows.createRefund(authA, refundBody(p1, '1.00')),
  ];
  const seen = await outcomes(submitted);
  const figures = await batchFigures(app);
  const after = await balances();
  const answers = (await Promise.allSettled(submitted)).map((s) => (s.status === 'fulfilled' ? s.value.object : null));
  const details = [];
  for (const [i, answer] of answers.entries()) {
    if (!answer) {
      details.push(null);
      continue;
    }
    const merchant = i === 6 ? second : first;
    const stored = (await get(app, merchant, `/v1/${answer.object}s/${answer.id}`)).json();
    const events = (await get(app, merchant, `/v1/events?object_id=${answer.id}`)).json().data as {
      type: string;
      data: { object: { status: string } };
    }[];
    const deliveries = await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_deliveries
      WHERE event_id IN (SELECT id FROM events WHERE object_id = ${answer.id})`.execute(app.deps.db.db);
    const postings = await sql<{ steps: string | null; total: string }>`SELECT string_agg(DISTINCT t.step, ',') AS steps,
        coalesce(sum(e.amount), 0) AS total
      FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id WHERE t.source_id = ${answer.id}`.execute(app.deps.db.db);
    const final = events.find((e) => !e.type.endsWith('.created'));
    details.push({
      same: JSON.stringify(stored) === JSON.stringify(answer),
      events: events.map((e) => e.type).sort(),
      finalPayload: JSON.stringify(final?.data.object) === JSON.stringify(answer),
      deliveries: Number(deliveries.rows[0]?.n),
      steps: postings.rows[0]?.steps ?? null,
      postingTotal: postings.rows[0]?.total,
    });
  }
  const rows = new Map((await chargeRows(app, [p1, p2, p3, card])).map((r) => [r.id, r.amount_refunded]));
  const refunded = Object.fromEntries([p1, p2, p3, card].map((id) => [id, rows.get(id)]));
  // w1's last three lines, latest first: the second refund of p1 (its own statement), then the two summed ones in arrival order.
  const lines = await sql<{ source_id: string; amount: string; balance_after: string }>`SELECT e.source_id, e.amount, e.balance_after
    FROM ledger_entries e WHERE e.account = ${walletAccount(w1)} ORDER BY e.seq DESC LIMIT 3`.execute(app.deps.db.db);
  const ledger = await verifyLedger(app.deps.db.db);
  const expected = [
    'succeeded',
    'succeeded',
    'error:amount_too_large',
    'succeeded',
    'failed:wallet_inactive',
    'succeeded',
    'succeeded',
    'succeeded',
  ];
  const wallet = (events: string[], deliveries: number, steps: string | null) => ({ events, deliveries, steps });
  const expectedDetails = [
    wallet(['refund.created', 'refund.succeeded'], 2, 'final'),
    wallet(['refund.created', 'refund.succeeded'], 4, 'final'),
    null,
    wallet(['payout.created', 'payout.succeeded'], 2, 'final'),
    wallet(['payout.created', 'payout.failed'], 2, null),
    wallet(['refund.created', 'refund.succeeded'], 2, 'final,hold'),
    wallet(['refund.created', 'refund.succeeded'], 0, 'final'),
    wallet(['refund.created', 'refund.succeeded'], 2, 'final'),
  ];
  const moved = Object.fromEntries(
    Object.entries(after).map(([k, v]) => [k, (Number(v) - Number(before.balances[k as keyof typeof after])).toFixed(2)]),
  );
  const ids = answers.map((a) => a?.id);
  const batch = batchesBetween(before.figures, figures);
  const ok =
    JSON.stringify(seen) === JSON.stringify(expected) &&
    details.every((d, i) => {
      const want = expectedDetails[i];
      if (!d || !want) return d === null && want === null;
      // The card refund was completed by the provider's answer, written after the statement: its row and final event are that answer's.
      return (
        (i === 5 || (d.same && d.finalPayload)) &&
        d.postingTotal === '0' &&
        JSON.stringify({ events: d.events, deliveries: d.deliveries, steps: d.steps }) === JSON.stringify(want)
      );
    }) &&
    JSON.stringify(moved) === JSON.stringify({ w1: '8.00', w2: '1.50', frozen: '0.00', wb: '2.00', a: '-10.50', b: '-2.00' }) &&
    JSON.stringify(refunded) === JSON.stringify({ [p1]: '500', [p2]: '300', [p3]: '400', [card]: '100' }) &&
    JSON.stringify(lines.rows) ===
      JSON.stringify([
        { source_id: ids[7], amount: '100', balance_after: '3800' },
        { source_id: ids[1], amount: '300', balance_after: '3700' },
        { source_id: ids[0], amount: '400', balance_after: '3400' },
      ]) &&
    isHealthy(ledger) &&
    batch.batches === 1 &&
    batch.statements === 8 &&
    batch.fellBack === 0;
  return { ok, seen: { outcomes: seen, details, moved, refunded, lines: lines.rows, ids, batch, ledger: isHealthy(ledger) } };
}

/**
 * Payouts whose sum is more than the merchant's funds, in one batch: the merged statement refuses
 * to decide them together (purse_abort), and each runs alone in arrival order, so exactly the ones
 * that fit one after the other succeed (10.00: 4 fits, 5 fits, 3 does not, 1 fits).
 */
export async function outflowFundsInOrder(app: TestApp): Promise<Verdict> {
  const merchant = await createTestMerchant(app, 'Group commit, funds');
  const auth = await authOf(app, merchant);
  const wallet = await fundedWallet(app, merchant, '20.00');
  await app.deps.services.charges.createCharge(auth, 'payment', paymentBody(wallet, '10.01'));
  const service = app.deps.services.outflows;
  // The warm-up makes the balance row and the wallet known, and leaves exactly 10.00.
  await service.createPayout(auth, payoutBody(wallet, '0.01'));
  const before = await batchFigures(app);
  const seen = await outcomes(['4.00', '5.00', '3.00', '1.00'].map((amount) => service.createPayout(auth, payoutBody(wallet, amount))));
  const after = await batchFigures(app);
  const left = await available(app, merchant);
  const expected = ['succeeded', 'succeeded', 'failed:insufficient_funds', 'succeeded'];
  const batch = {
    fellBack: after.fellBack.batches - before.fellBack.batches,
    statements: after.fellBack.statements - before.fellBack.statements,
  };
  const ledger = await verifyLedger(app.deps.db.db);
  const ok =
    JSON.stringify(seen) === JSON.stringify(expected) &&
    left === '0.00' &&
    batch.fellBack === 1 &&
    batch.statements === 4 &&
    isHealthy(ledger);
  return { ok, seen: { outcomes: seen, expected, available: left, batch, ledger: isHealthy(ledger) } };
}

/**
 * Transfers submitted together, merged: each wallet is in at most one transfer of a statement, so
 * a transfer out of a wallet that an earlier one credited runs in a later statement and sees that
 * credit (each statement in a batch of its own: transfers commit alone); a frozen destination
 * fails wallet_inactive, a poor source insufficient_funds; each its own event and posting;
 * nothing falls back.
 */
export async function mergedTransfers(app: TestApp): Promise<Verdict> {
  const merchant = await createTestMerchant(app, 'Group commit, transfers');
  const auth = await authOf(app, merchant);
  const [a, b, c, d, e, f] = [
    await fundedWallet(app, merchant, '20.00'),
    await fundedWallet(app, merchant, '5.00'),
    await fundedWallet(app, merchant, '0.01'),
    await fundedWallet(app, merchant, '10.00'),
    await fundedWallet(app, merchant, '10.00'),
    await fundedWallet(app, merchant, '0.01'),
  ];
  await post(app, merchant, `/v1/wallets/${d}/freeze`, {});
  const transfers = app.deps.services.transfers;
  const body = (from: string, to: string, amount: string) =>
    ({ reference: uniqueRef('gc-move'), amount, currency: 'KES', source_wallet_id: from, destination_wallet_id: to }) as Parameters<
      typeof transfers.createTransfer
    >[1];
  // Every wallet known (no lookup in the batch): c and f empty, so that the batch moves all there is.
  await transfers.createTransfer(auth, body(c, a, '0.01'));
  await transfers.createTransfer(auth, body(f, a, '0.01'));
  const before = await batchFigures(app);
  const submitted = [
    transfers.createTransfer(auth, body(a, b, '8.00')),
    transfers.createTransfer(auth, body(b, c, '12.00')),
    transfers.createTransfer(auth, body(e, d, '1.00')),
    transfers.createTransfer(auth, body(e, f, '2.00')),
    transfers.createTransfer(auth, body(a, f, '20.00')),
  ];
  const seen = await outcomes(submitted);
  const batch = batchesBetween(before, await batchFigures(app));
  const balances: string[] = [];
  for (const w of [a, b, c, d, e, f]) balances.push(await walletBalance(app, merchant, w));
  const events = [];
  for (const s of await Promise.allSettled(submitted)) {
    if (s.status !== 'fulfilled') continue;
    const listed = (await get(app, merchant, `/v1/events?object_id=${s.value.object.id}`)).json().data as {
      type: string;
      data: { object: unknown };
    }[];
    events.push(
      listed.length === 1 && JSON.stringify(listed[0]?.data.object) === JSON.stringify(s.value.object) ? listed[0]?.type : listed,
    );
  }
  const ledger = await verifyLedger(app.deps.db.db);
  const expected = ['succeeded', 'succeeded', 'failed:wallet_inactive', 'succeeded', 'failed:insufficient_funds'];
  const expectedEvents = ['transfer.succeeded', 'transfer.succeeded', 'transfer.failed', 'transfer.succeeded', 'transfer.failed'];
  const ok =
    JSON.stringify(seen) === JSON.stringify(expected) &&
    JSON.stringify(balances) === JSON.stringify(['12.02', '1.00', '12.00', '10.00', '8.00', '2.00']) &&
    JSON.stringify(events) === JSON.stringify(expectedEvents) &&
    isHealthy(ledger) &&
    // Transfers' statements commit alone: the five, planned as four statements, run as four batches.
    batch.batches === 4 &&
    batch.statements === 5 &&
    batch.fellBack === 0;
  return { ok, seen: { outcomes: seen, expected, balances, events, batch, ledger: isHealthy(ledger) } };
}
