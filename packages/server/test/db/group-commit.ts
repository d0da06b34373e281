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
import { isHealthy, verifyLedger } from '../../src/ledger/verify.ts';
import type { AuthContext } from '../../src/oauth/service.ts';
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
  const batch = {
    batches: figures.committed.batches - before.figures.committed.batches,
    statements: figures.committed.statements - before.figures.committed.statements,
    fellBack: figures.fellBack.batches - before.figures.fellBack.batches,
  };
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
