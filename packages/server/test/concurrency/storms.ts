// The reference storms (docs/money-safety.md rule 2), written once
// and run in process (storms.test.ts) and over two server processes (two-processes.test.ts).
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { TestApp } from '../helpers/app.ts';
import { assertLedgerHealthy, cardMethod, mobileMethod, uniqueRef, walletMethod } from '../helpers/factories.ts';
import { type ApiClient, type ApiResponse, inParallel, tally } from './support.ts';

export const ALL_MEANS = ['card payment', 'mobile-money payment', 'wallet payment', 'card top-up', 'mobile-money top-up'] as const;
export type Means = (typeof ALL_MEANS)[number];

/** A wallet payment moves money inside the ledger: no provider is called. */
export const expectedProviderCalls = (means: Means): number => (means === 'wallet payment' ? 0 : 1);

export interface StormFixtures {
  /** A KES wallet: wallet payments debit it, top-ups credit it. */
  walletId: string;
}

/** One wallet, funded through the API (card top-up) far beyond what the storms spend. */
export async function stormFixtures(client: ApiClient): Promise<StormFixtures> {
  const wallet = await client.request('POST', '/v1/wallets', { currency: 'KES' });
  assert.equal(wallet.status, 201, JSON.stringify(wallet.body));
  const walletId = wallet.body.id as string;
  const topup = await client.request('POST', '/v1/topups', {
    reference: uniqueRef('storm-fund'),
    amount: '100000.00',
    currency: 'KES',
    wallet_id: walletId,
    source: cardMethod(),
  });
  assert.equal(topup.status, 201, JSON.stringify(topup.body));
  assert.equal(topup.body.status, 'succeeded');
  return { walletId };
}

/** The create request of one means: the path and the body. */
export function createRequest(means: Means, fixtures: StormFixtures, reference: string, amount = '10.00') {
  const base = { reference, amount, currency: 'KES', description: `storm ${means}`, metadata: { storm: 'issue-3' } };
  switch (means) {
    case 'card payment':
      return { path: '/v1/payments', kind: 'payment' as const, body: { ...base, payment_method: cardMethod() } };
    case 'mobile-money payment':
      return { path: '/v1/payments', kind: 'payment' as const, body: { ...base, payment_method: mobileMethod('+254712345000') } };
    case 'wallet payment':
      return { path: '/v1/payments', kind: 'payment' as const, body: { ...base, payment_method: walletMethod(fixtures.walletId) } };
    case 'card top-up':
      return { path: '/v1/topups', kind: 'topup' as const, body: { ...base, wallet_id: fixtures.walletId, source: cardMethod() } };
    case 'mobile-money top-up':
      return {
        path: '/v1/topups',
        kind: 'topup' as const,
        body: { ...base, wallet_id: fixtures.walletId, source: mobileMethod('+254712345000') },
      };
  }
}

export interface StormChecks {
  /** An in-process app on the same database: its db answers the counting queries and the ledger check. */
  app: TestApp;
  /** initiate calls seen for a charge (the idempotency key is the charge id), when the test wraps the connector. */
  providerCalls?: (chargeId: string) => number;
}

export interface StormFigures {
  means: Means;
  requests: number;
  statuses: Record<string, number>;
  unexpected: number;
  id: string;
  providerCalls: number | null;
  providerRows: number;
  charges: number;
  ms: number;
}

/** What every storm checks after the last response: one charge, its provider calls, its postings, the ledger. */
async function checkAftermath(
  means: Means,
  kind: 'payment' | 'topup',
  reference: string,
  id: string,
  checks: StormChecks,
  path: string,
  client: ApiClient,
) {
  const db = checks.app.deps.db.db;
  const charges = await db
    .selectFrom('charges')
    .select(['id', 'merchant_id'])
    .where('reference', '=', reference)
    .where('kind', '=', kind)
    .execute();
  assert.equal(charges.length, 1, `${means}: one charge per reference, found ${charges.length}`);
  assert.equal(charges[0]!.id, id);
  const listed = await client.request('GET', `${path}?reference=${encodeURIComponent(reference)}&limit=100`);
  assert.equal(listed.status, 200);
  assert.deepEqual(
    listed.body.data.map((o: { id: string }) => o.id),
    [id],
    `${means}: the list by reference shows the one object`,
  );

  const providerRows = Number(
    (await sql<{ n: string }>`SELECT count(*) AS n FROM sandbox_provider_charges WHERE idempotency_key = ${id}`.execute(db)).rows[0]!.n,
  );
  assert.equal(providerRows, expectedProviderCalls(means), `${means}: provider-side charges`);
  const providerCalls = checks.providerCalls ? checks.providerCalls(id) : null;
  if (providerCalls !== null) assert.equal(providerCalls, expectedProviderCalls(means), `${means}: provider initiate calls`);

  const row = await db.selectFrom('charges').select(['status', 'attempts']).where('id', '=', id).executeTakeFirstOrThrow();
  // No replay took the charge over to resume it (a second way to the provider). Only the worker
  // may look at a mobile-money charge again; a card or wallet charge is never picked up twice.
  if (!means.startsWith('mobile-money')) assert.equal(row.attempts, 0, `${means}: a replay resumed the charge`);
  const postings = Number(
    (await sql<{ n: string }>`SELECT count(*) AS n FROM ledger_transactions WHERE source_id = ${id}`.execute(db)).rows[0]!.n,
  );
  assert.equal(postings, row.status === 'succeeded' ? 1 : 0, `${means}: ledger postings of a ${row.status} charge`);
  await assertLedgerHealthy(checks.app);
  return { providerCalls, providerRows, charges: charges.length };
}

/**
 * The identical storm: `n` identical creates with one reference, all in flight at once.
 * Exactly one 201; n-1 × 200 with Idempotent-Replayed: true and the same id; one provider call.
 */
export async function identicalStorm(
  client: ApiClient,
  means: Means,
  fixtures: StormFixtures,
  checks: StormChecks,
  n = 100,
): Promise<StormFigures> {
  const reference = uniqueRef(`identical-${means.replace(/\W+/g, '-')}`);
  const { path, kind, body } = createRequest(means, fixtures, reference);
  const started = Date.now();
  const responses = await inParallel(n, n, () => client.request('POST', path, body));
  const ms = Date.now() - started;

  const statuses = tally(responses.map((r) => r.status));
  const describe = () =>
    `${means}: ${JSON.stringify(statuses)}; first odd: ${JSON.stringify(responses.find((r) => r.status !== 200 && r.status !== 201)?.body ?? null)}`;
  assert.deepEqual(statuses, { '200': n - 1, '201': 1 }, describe());
  const created = responses.find((r) => r.status === 201)!;
  const id = created.body.id as string;
  assert.equal(created.headers.location, `${path}/${id}`);
  assert.equal(created.headers['idempotent-replayed'], undefined, 'a 201 is not a replay');
  for (const r of responses) {
    assert.equal(r.body.id, id, `${means}: every answer names the same object`);
    assert.equal(r.body.reference, reference);
    assert.equal(r.body.amount, '10.00');
    if (r.status === 200) assert.equal(r.headers['idempotent-replayed'], 'true', `${means}: a 200 carries Idempotent-Replayed: true`);
  }
  assertStatuses(means, created, responses);
  const after = await checkAftermath(means, kind, reference, id, checks, path, client);
  return { means, requests: n, statuses, unexpected: 0, id, ...after, ms };
}

/** The first answer's status for each means; replays show the object in its current state. */
function assertStatuses(means: Means, created: ApiResponse, responses: ApiResponse[]): void {
  const first = means.startsWith('mobile-money') ? ['pending'] : ['succeeded'];
  assert.ok(first.includes(created.body.status), `${means}: the 201 is ${created.body.status}`);
  // A card replay that lands while the first request is still at the provider sees pending.
  const allowed = means === 'wallet payment' ? ['succeeded'] : ['pending', 'succeeded'];
  for (const r of responses) assert.ok(allowed.includes(r.body.status), `${means}: a replay is ${r.body.status}`);
}

export interface MixedFigures extends StormFigures {
  winner: 'A' | 'B';
  replays: number;
  conflicts: number;
}

/**
 * The mixed storm: one reference, two bodies (amounts 10.00 and 11.00), `n` requests half
 * and half, interleaved, all in flight at once. One 201; the winner's body replays (200), the
 * other body gets 409 reference_conflict with existing_id.
 */
export async function mixedStorm(
  client: ApiClient,
  means: Means,
  fixtures: StormFixtures,
  checks: StormChecks,
  n = 100,
): Promise<MixedFigures> {
  const reference = uniqueRef(`mixed-${means.replace(/\W+/g, '-')}`);
  const a = createRequest(means, fixtures, reference, '10.00');
  const b = createRequest(means, fixtures, reference, '11.00');
  const started = Date.now();
  const responses = await inParallel(n, n, (i) => client.request('POST', a.path, i % 2 === 0 ? a.body : b.body));
  const ms = Date.now() - started;

  const statuses = tally(responses.map((r) => r.status));
  const creators = responses.map((r, i) => ({ r, i })).filter(({ r }) => r.status === 201);
  assert.equal(creators.length, 1, `${means}: exactly one 201, got ${JSON.stringify(statuses)}`);
  const winnerIndex = creators[0]!.i % 2;
  const id = creators[0]!.r.body.id as string;
  const winnerAmount = winnerIndex === 0 ? '10.00' : '11.00';
  assert.equal(creators[0]!.r.body.amount, winnerAmount);

  let replays = 0;
  let conflicts = 0;
  responses.forEach((r, i) => {
    if (i % 2 === winnerIndex) {
      if (r.status === 201) return;
      assert.equal(r.status, 200, `${means}: the winner's body replays, got ${r.status} ${JSON.stringify(r.body)}`);
      assert.equal(r.headers['idempotent-replayed'], 'true');
      assert.equal(r.body.id, id);
      assert.equal(r.body.amount, winnerAmount);
      replays += 1;
    } else {
      assert.equal(r.status, 409, `${means}: the other body conflicts, got ${r.status} ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'reference_conflict');
      assert.equal(r.body.error.param, 'reference');
      assert.equal(r.body.error.existing_id, id);
      assert.match(r.body.error.message, /amount/);
      conflicts += 1;
    }
  });
  assert.equal(replays, n / 2 - 1);
  assert.equal(conflicts, n / 2);
  const after = await checkAftermath(means, a.kind, reference, id, checks, a.path, client);
  return { means, requests: n, statuses, unexpected: 0, id, winner: winnerIndex === 0 ? 'A' : 'B', replays, conflicts, ...after, ms };
}

/** Wraps the in-process sandbox connector's initiate to count calls per idempotency key (charge id). */
export function countInitiateCalls(app: TestApp): { calls(chargeId: string): number; total(): number } {
  const sandbox = app.deps.sandboxConnector;
  const original = sandbox.initiate.bind(sandbox);
  const counts = new Map<string, number>();
  let total = 0;
  sandbox.initiate = async (request, signal) => {
    counts.set(request.idempotencyKey, (counts.get(request.idempotencyKey) ?? 0) + 1);
    total += 1;
    return original(request, signal);
  };
  return { calls: (id) => counts.get(id) ?? 0, total: () => total };
}
