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
import type { AuthContext } from '../../src/oauth/service.ts';
import { ApiError } from '../../src/shared/errors.ts';
import { createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { fundedWallet, post, uniqueRef, walletMethod } from '../helpers/factories.ts';

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
 * two payments whose COMMIT this scenario holds back (on the pool's connection, so on either
 * database); while it is held both statements have run but neither may be answered; then the
 * connection "dies": the transaction is rolled back and COMMIT fails as a lost connection does.
 * Both fail, neither is stored, no money moved.
 */
export async function noAnswerBeforeCommit(app: TestApp): Promise<Verdict> {
  const merchant = await createTestMerchant(app, 'Group commit, commit');
  const auth = await authOf(app, merchant);
  const wallets = [await fundedWallet(app, merchant, '10.00'), await fundedWallet(app, merchant, '10.00')];
  const charges = app.deps.services.charges;
  for (const w of wallets) await charges.createCharge(auth, 'payment', paymentBody(w, '1.00'));

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
    const submitted = wallets.map((w, i) =>
      charges.createCharge(auth, 'payment', paymentBody(w, '2.00', references[i])).finally(() => {
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
    const balances = [await walletBalance(app, merchant, wallets[0] as string), await walletBalance(app, merchant, wallets[1] as string)];
    const ok =
      held &&
      !answeredWhileHeld &&
      seen.every((s) => s.startsWith('error:')) &&
      Number(stored.rows[0]?.n) === 0 &&
      JSON.stringify(balances) === JSON.stringify(['9.00', '9.00']);
    return { ok, seen: { held, answeredWhileHeld, outcomes: seen, stored: stored.rows[0]?.n, balances } };
  } finally {
    pool.off('acquire', holdCommit);
  }
}
