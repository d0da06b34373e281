// `crash-payout` and `crash-refund`: kill -9 of the server during a stream of mobile-money
// payouts, and separately of mobile-money refunds (of succeeded mobile-money and card payments),
// with clients retrying the same reference and body until a 2xx (docs/money-safety.md rule 1).
// A fresh database on the machine's PostgreSQL; the server restarts on it, on the same port,
// and its outflow worker finishes what the dead processes left pending.
// After recovery: every acknowledged outflow is there with its id and reference, one object per
// reference, one hold and at most one final posting each, the provider's books hold exactly one
// request per sent outflow and agree with its final state, nothing left pending, reserved = 0,
// available = succeeded payments − succeeded outflows, the ledger healthy, every event delivered.

import { sql } from 'kysely';
import type { DbHandle } from '../../src/db/db.ts';
import { freePort, type SpawnedServer, sleep, spawnServer, waitReady } from '../helpers/processes.ts';
import {
  type Ack,
  Cleanups,
  durabilityEnv,
  errorLogLines,
  type Fixture,
  killsUnderLoad,
  LoadStats,
  ledgerImbalance,
  type Operation,
  recordFailure,
  replayAcknowledged,
  runLoad,
  scenarioDatabase,
  setUpFixture,
  tallyLines,
  waitEventsDelivered,
  waitSettled,
} from './durability.ts';
import { emptyFigures, type Figures, type Profile, type Scenario, type ScenarioResult } from './figures.ts';

type OutflowKind = 'payout' | 'refund';

const PROFILES = {
  // kills, clients, pause between a server being ready and its kill (ms, min–max), refundable payments
  short: { kills: 2, clients: 8, pauseMs: [1_500, 3_000], payments: 24 },
  full: { kills: 6, clients: 16, pauseMs: [2_000, 5_000], payments: 60 },
} as const;

/** An outflow whose send died with its process waits for its lease (15 s), then the worker asks and sends. */
const SETTLE_TIMEOUT_MS = 90_000;
const DELIVERY_TIMEOUT_MS = 60_000;
/** Each refundable payment is this much, refunded 1.00 at a time. */
const PAYMENT_AMOUNT = '100.00';
const REFUNDS_PER_PAYMENT = 100;

const CARD_OK = { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' };
const phone = (suffix: string) => `+254712345${suffix}`;

async function post(base: string, auth: { authorization: string }, path: string, body: unknown) {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * The merchant's funds: wallet payments (succeeded at once) of `walletFunds` in all, and for
 * refunds `refundable` payments of PAYMENT_AMOUNT, two in three by mobile money (000, and 006
 * which settles slowly), the rest by card, all succeeded before the crash phase.
 */
export async function fundMerchant(
  db: DbHandle,
  base: string,
  fixture: Fixture,
  walletFunds: { count: number; amount: string },
  refundable: number,
): Promise<string[]> {
  for (let i = 0; i < walletFunds.count; i++) {
    const wallet = fixture.wallets[i % fixture.wallets.length]!;
    const r = await post(base, fixture.auth, '/v1/payments', {
      reference: `funds-${i}`,
      amount: walletFunds.amount,
      currency: 'KES',
      payment_method: { type: 'wallet', wallet: { wallet_id: wallet } },
    });
    if (r.status !== 201 || r.body.status !== 'succeeded') throw new Error(`funding payment: ${r.status} ${JSON.stringify(r.body)}`);
  }
  const payments: string[] = [];
  for (let i = 0; i < refundable; i++) {
    const method =
      i % 3 === 2
        ? { type: 'card', card: CARD_OK }
        : { type: 'mobile_money', mobile_money: { phone_number: phone(i % 6 === 1 ? '006' : '000') } };
    const r = await post(base, fixture.auth, '/v1/payments', {
      reference: `refundable-${i}`,
      amount: PAYMENT_AMOUNT,
      currency: 'KES',
      payment_method: method,
    });
    if (r.status !== 201 || r.body.status === 'failed') throw new Error(`refundable payment: ${r.status} ${JSON.stringify(r.body)}`);
    payments.push(r.body.id as string);
  }
  if (payments.length === 0) return payments;
  const settled = await waitSettled(db, fixture.merchantId, 60_000);
  if (settled.pending > 0) throw new Error(`${settled.pending} refundable payments still pending after 60 s`);
  const ok = await sql<{ n: string }>`
    SELECT count(*)::text AS n FROM charges WHERE id IN (${sql.join(payments)}) AND status = 'succeeded'`.execute(db.db);
  if (Number(ok.rows[0]!.n) !== payments.length)
    throw new Error(`only ${ok.rows[0]!.n} of ${payments.length} refundable payments succeeded`);
  return payments;
}

/** Payouts to mobile money: mostly successes, some slow, some failing (the amount comes back). */
function payoutOperations(runId: string): (client: number, seq: number) => Operation {
  const suffixes = ['000', '000', '001', '006', '000', '004', '000', '007'];
  const amounts = ['1.00', '2.50', '3.00', '1.75'];
  return (client, seq) => {
    const ref = `${runId}-c${client}-${seq}`;
    return {
      ref,
      kind: 'payout',
      path: '/v1/payouts',
      body: {
        reference: ref,
        amount: amounts[seq % amounts.length],
        currency: 'KES',
        destination: { type: 'mobile_money', mobile_money: { phone_number: phone(suffixes[(client + seq) % suffixes.length]!) } },
      },
    };
  };
}

/** Refunds of 1.00, spread over the payments in turn; null once every payment would be refunded in full. */
function refundOperations(runId: string, payments: string[]): (client: number, seq: number) => Operation | null {
  let next = 0;
  return (client, seq) => {
    const i = next++;
    if (i >= payments.length * REFUNDS_PER_PAYMENT) return null;
    const ref = `${runId}-c${client}-${seq}`;
    return {
      ref,
      kind: 'refund',
      path: '/v1/refunds',
      body: { reference: ref, payment_id: payments[i % payments.length], amount: '1.00', reason: 'requested_by_customer' },
    };
  };
}

export async function pendingOutflows(db: DbHandle, merchantId: string): Promise<number> {
  const r = await sql<{ n: string }>`
    SELECT count(*)::text AS n FROM outflows WHERE merchant_id = ${merchantId} AND status = 'pending'`.execute(db.db);
  return Number(r.rows[0]!.n);
}

export async function waitOutflowsFinal(db: DbHandle, merchantId: string, timeoutMs: number): Promise<{ pending: number; ms: number }> {
  const started = Date.now();
  for (;;) {
    const pending = await pendingOutflows(db, merchantId);
    if (pending === 0 || Date.now() - started > timeoutMs) return { pending, ms: Date.now() - started };
    await sleep(500);
  }
}

const FINAL = new Set(['succeeded', 'failed']);

/** Every acknowledged outflow exists with the acknowledged reference and kind; an acknowledged final state is still that state. */
export async function checkAcknowledgedOutflows(db: DbHandle, acks: Ack[]) {
  const rows = new Map<string, { reference: string; kind: string; status: string }>();
  const ids = acks.map((a) => a.id);
  for (let i = 0; i < ids.length; i += 1000) {
    const r = await sql<{ id: string; reference: string; kind: string; status: string }>`
      SELECT id, reference, kind, status FROM outflows WHERE id IN (${sql.join(ids.slice(i, i + 1000))})`.execute(db.db);
    for (const row of r.rows) rows.set(row.id, row);
  }
  let missingRows = 0;
  let stateChanged = 0;
  const samples: string[] = [];
  for (const a of acks) {
    const row = rows.get(a.id);
    if (!row || row.reference !== a.op.ref || row.kind !== a.op.kind) {
      missingRows++;
      if (samples.length < 5) samples.push(`${a.op.ref} → ${a.id} (${a.status} ${a.objectStatus}) not in the database`);
    } else if (FINAL.has(a.objectStatus) && row.status !== a.objectStatus) {
      stateChanged++;
      if (samples.length < 5) samples.push(`${a.op.ref} → ${a.id} acknowledged ${a.objectStatus}, now ${row.status}`);
    }
  }
  return { lost: missingRows + stateChanged, missingRows, stateChanged, samples };
}

/**
 * What the books say about each outflow of the merchant: references held twice, more than one
 * hold or final posting, and for every outflow sent to the provider (it has a hold) the
 * provider's requests under its id (the sandbox is idempotent on it: exactly 1 expected) and
 * whether the provider's settled outcome is the outflow's final state.
 */
export async function outflowBooks(db: DbHandle, merchantId: string) {
  const dupRefs = await sql<{ n: string }>`
    SELECT count(*)::text AS n FROM (
      SELECT 1 FROM outflows WHERE merchant_id = ${merchantId} GROUP BY kind, reference HAVING count(*) > 1
    ) d`.execute(db.db);
  const postedTwice = await sql<{ id: string }>`
    SELECT o.id FROM outflows o JOIN ledger_transactions t ON t.source_type = o.kind AND t.source_id = o.id
    WHERE o.merchant_id = ${merchantId}
    GROUP BY o.id
    HAVING count(*) FILTER (WHERE t.step = 'final') > 1 OR count(*) FILTER (WHERE t.step = 'hold') > 1`.execute(db.db);
  const sent = await sql<{ id: string; status: string; requests: string; outcome: string | null; settled: boolean }>`
    SELECT o.id, o.status, count(s.idempotency_key)::text AS requests, min(s.outcome) AS outcome,
      coalesce(bool_and(s.complete_at <= now()), false) AS settled
    FROM outflows o LEFT JOIN sandbox_provider_charges s ON s.idempotency_key = o.id
    WHERE o.merchant_id = ${merchantId} AND o.destination_type <> 'wallet'
      AND EXISTS (SELECT 1 FROM ledger_transactions t WHERE t.source_type = o.kind AND t.source_id = o.id AND t.step = 'hold')
    GROUP BY o.id, o.status`.execute(db.db);
  const notOnce = sent.rows.filter((r) => Number(r.requests) !== 1);
  const disagree = sent.rows.filter((r) => r.outcome !== null && r.settled && r.status !== 'pending' && r.outcome !== r.status);
  // How the crashes left them: claimed by a worker (the creating process did not settle it), and
  // first sent more than 10 s after creation (the creating process died before sending; the
  // worker sent it once the lease had passed).
  const paths = await sql<{ worker: string; late: string }>`
    SELECT count(*) FILTER (WHERE o.attempts > 0)::text AS worker,
      count(*) FILTER (WHERE s.created_at > o.created_at + interval '10 seconds')::text AS late
    FROM outflows o LEFT JOIN sandbox_provider_charges s ON s.idempotency_key = o.id
    WHERE o.merchant_id = ${merchantId}`.execute(db.db);
  const byStatus: Record<string, number> = {};
  const all = await sql<{ status: string; failure_code: string | null; n: string }>`
    SELECT status, failure_code, count(*)::text AS n FROM outflows WHERE merchant_id = ${merchantId}
    GROUP BY status, failure_code`.execute(db.db);
  for (const r of all.rows) byStatus[r.failure_code ? `${r.status}:${r.failure_code}` : r.status] = Number(r.n);
  return {
    duplicateReferences: Number(dupRefs.rows[0]!.n),
    postedTwice: postedTwice.rows.map((r) => r.id),
    sent: sent.rows.length,
    neverSent: notOnce.filter((r) => Number(r.requests) === 0).map((r) => r.id),
    sentTwice: notOnce.filter((r) => Number(r.requests) > 1).map((r) => r.id),
    disagree: disagree.map((r) => `${r.id}: ${r.status}, provider ${r.outcome}`),
    byStatus,
    claimedByWorker: Number(paths.rows[0]!.worker),
    sentByWorkerAfterLease: Number(paths.rows[0]!.late),
  };
}

const toMinor = (amount: string): bigint => {
  const [whole, frac = ''] = amount.split('.');
  return BigInt(whole!) * 100n + BigInt(frac.padEnd(2, '0').slice(0, 2));
};

/** GET /v1/balance against the tables: reserved 0, available = succeeded payments − succeeded outflows. */
export async function balanceCheck(db: DbHandle, base: string, fixture: Fixture) {
  const res = await fetch(`${base}/v1/balance`, { headers: fixture.auth, signal: AbortSignal.timeout(30_000) });
  const body = (await res.json()) as {
    available: { currency: string; amount: string }[];
    reserved: { currency: string; amount: string }[];
  };
  const available = toMinor(body.available.find((b) => b.currency === 'KES')?.amount ?? '0');
  const reserved = toMinor(body.reserved.find((b) => b.currency === 'KES')?.amount ?? '0');
  const sums = await sql<{ paid: string; out: string }>`
    SELECT
      (SELECT coalesce(sum(amount), 0) FROM charges WHERE merchant_id = ${fixture.merchantId} AND kind = 'payment' AND status = 'succeeded')::text AS paid,
      (SELECT coalesce(sum(amount), 0) FROM outflows WHERE merchant_id = ${fixture.merchantId} AND status = 'succeeded')::text AS out`.execute(
    db.db,
  );
  const expected = BigInt(sums.rows[0]!.paid) - BigInt(sums.rows[0]!.out);
  return { status: res.status, available, reserved, expected, ok: res.status === 200 && reserved === 0n && available === expected };
}

function crashOutflows(kind: OutflowKind): Scenario {
  const name = `crash-${kind}`;
  return {
    name,
    async run(profile: Profile): Promise<ScenarioResult> {
      const p = PROFILES[profile];
      const figures: Figures = emptyFigures();
      const problems: string[] = [];
      const details: Record<string, unknown> = {};
      const cleanups = new Cleanups();
      const dbName = `purse_faults_${kind}_${Date.now().toString(36)}_${process.pid}`;
      const errorLines: string[] = [];
      try {
        const { databaseUrl, db } = await scenarioDatabase(cleanups, dbName);
        const port = await freePort();
        const spawn = () => spawnServer(cleanups, durabilityEnv(databaseUrl, port));
        let server: SpawnedServer = spawn();
        await waitReady(server, 60_000);
        const base = server.base;
        const fixture = await setUpFixture(cleanups, base, databaseUrl, 2);
        const payments =
          kind === 'refund'
            ? await fundMerchant(db, base, fixture, { count: 2, amount: '5000.00' }, p.payments)
            : await fundMerchant(db, base, fixture, { count: 8, amount: '5000.00' }, 0);

        const runId = `${name}-${Date.now().toString(36)}`;
        const stats = new LoadStats();
        const killed = await killsUnderLoad({
          server,
          spawn,
          plan: p,
          figures,
          errorLines,
          startLoad: (control) =>
            runLoad({
              base,
              auth: fixture.auth,
              wallets: fixture.wallets,
              clients: p.clients,
              runId,
              hardDeadline: Date.now() + 600_000,
              stats,
              operation: kind === 'payout' ? payoutOperations(runId) : refundOperations(runId, payments),
              ...control,
            }),
        });
        server = killed.server;
        const { restartMs, loadSeconds } = killed;
        const pendingAfterLoad = await pendingOutflows(db, fixture.merchantId);

        const settled = await waitOutflowsFinal(db, fixture.merchantId, SETTLE_TIMEOUT_MS);
        const events = await waitEventsDelivered(db, fixture.merchantId, fixture.receiver, DELIVERY_TIMEOUT_MS, stats.acks);
        const acknowledged = await checkAcknowledgedOutflows(db, stats.acks);
        const idsByRef = new Map<string, Set<string>>();
        for (const a of stats.acks) idsByRef.set(a.op.ref, (idsByRef.get(a.op.ref) ?? new Set()).add(a.id));
        const ackDuplicates = [...idsByRef.values()].filter((s) => s.size > 1).length;
        const replay = await replayAcknowledged(base, fixture.auth, stats.acks);
        const books = await outflowBooks(db, fixture.merchantId);
        const ledger = await ledgerImbalance(db);
        const balance = await balanceCheck(db, base, fixture);

        if (!server.running()) problems.push(`the last server exited:\n${server.output().slice(-2000)}`);
        errorLines.push(...errorLogLines(server.output()));
        if (replay.notReplay > 0 || replay.failures > 0)
          problems.push(
            `replay after recovery: ${replay.notReplay} not a 200 replay, ${replay.failures} errors (${replay.samples.join('; ')})`,
          );
        if (books.neverSent.length > 0)
          problems.push(
            `${books.neverSent.length} outflows holding funds that the provider never received (${books.neverSent.slice(0, 3).join(', ')})`,
          );
        if (books.disagree.length > 0)
          problems.push(
            `${books.disagree.length} outflows whose final state is not the provider's (${books.disagree.slice(0, 3).join('; ')})`,
          );
        if (!balance.ok)
          problems.push(
            `balance: ${balance.status}, available ${balance.available} (expected ${balance.expected} = succeeded payments − succeeded outflows), reserved ${balance.reserved} (expected 0), in minor units`,
          );
        if (stats.missingRetryAfter > 0) problems.push(`${stats.missingRetryAfter} answers 503 without Retry-After`);
        if (stats.unexpectedCount > 0)
          problems.push(`${stats.unexpectedCount} unexpected answers (${stats.unexpected.slice(0, 3).join('; ')})`);
        if (stats.gaveUp > 0) problems.push(`${stats.gaveUp} references never acknowledged before the clients' deadline`);
        if (stats.acks.length === 0) problems.push('no request was acknowledged: the load never ran');

        figures.requests = stats.requests;
        figures.acknowledged = stats.acks.length;
        figures.lost = acknowledged.lost;
        // One object per reference, one final posting per outflow, one provider request per sent outflow.
        figures.duplicates = books.duplicateReferences + ackDuplicates + replay.otherId + books.postedTwice.length + books.sentTwice.length;
        figures.unresolved = settled.pending;
        figures.ledgerImbalance = ledger.count + (balance.ok ? 0 : 1);
        figures.eventsMissing = events.missing.length;
        figures.unexpected5xx = stats.unexpected5xx;
        const ackStatus: Record<string, number> = {};
        for (const a of stats.acks) ackStatus[a.objectStatus] = (ackStatus[a.objectStatus] ?? 0) + 1;
        Object.assign(details, {
          loadSeconds: Math.round(loadSeconds * 10) / 10,
          clients: p.clients,
          restartSecondsMax: Math.round(Math.max(...restartMs) / 100) / 10,
          acknowledgedAs: ackStatus,
          byStatus: stats.byStatus,
          connectionErrors: stats.connectionErrors,
          clientTimeouts: stats.timeouts,
          answers503: stats.answers503,
          pendingAfterLoad,
          settleSeconds: Math.round(settled.ms / 100) / 10,
          outflowsByStatus: books.byStatus,
          sentToProvider: books.sent,
          claimedByWorker: books.claimedByWorker,
          sentByWorkerAfterLease: books.sentByWorkerAfterLease,
          providerRequestsNotOne: books.neverSent.length + books.sentTwice.length,
          postedTwice: books.postedTwice.length,
          lostMissingRows: acknowledged.missingRows,
          lostStateChanged: acknowledged.stateChanged,
          lostSamples: acknowledged.samples,
          replayed: replay.replayed,
          replayOtherId: replay.otherId,
          balance: {
            available: balance.available.toString(),
            reserved: balance.reserved.toString(),
            expected: balance.expected.toString(),
          },
          eventsInDatabase: events.total,
          deliverySeconds: Math.round(events.ms / 100) / 10,
          ledgerTransactions: ledger.report.transactions,
          ...(ledger.count > 0 ? { ledgerReport: ledger.report } : {}),
          ...(events.missing.length > 0 ? { eventsMissingSample: events.missing.slice(0, 5) } : {}),
          ...(stats.unexpected.length > 0 ? { unexpected: stats.unexpected } : {}),
          serverErrorLogLines: errorLines.length,
          ...(errorLines.length > 0 ? { serverErrorLogs: tallyLines(errorLines) } : {}),
        });
      } catch (error) {
        recordFailure(problems, details, error);
      } finally {
        problems.push(...(await cleanups.run()));
      }
      return { name, figures, details, problems };
    },
  };
}

/** kill -9 during a stream of mobile-money payouts. */
export const crashPayout: Scenario = crashOutflows('payout');
/** kill -9 during a stream of mobile-money refunds (of mobile-money and card payments). */
export const crashRefund: Scenario = crashOutflows('refund');
