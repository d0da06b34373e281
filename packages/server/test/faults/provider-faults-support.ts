// Pieces of the `provider-faults` scenario: a fresh PostgreSQL database, one spawned server with
// the fault-injecting sandbox, a recording HTTP client, the test acting as the sandbox provider
// (it writes the provider's books and signs callbacks with the sandbox key), and the checks of
// every charge against the provider's truth. Only 127.0.0.1.
import { createHmac, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { type SandboxCallbackBody, sandboxCallbackKey, signSandboxCallback } from '../../src/connectors/sandbox/callbacks.ts';
import { createPostgresDb, type DbHandle } from '../../src/db/db.ts';
import { deriveHashKey } from '../../src/deps.ts';
import { createMerchantService } from '../../src/merchants/service.ts';
import { systemClock } from '../../src/shared/clock.ts';
import { freePort, type SpawnedServer, spawnServer, tokenFor, waitReady } from '../helpers/processes.ts';
import { Cleanups } from './durability.ts';

const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export { Cleanups };

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export interface Setup {
  server: SpawnedServer;
  db: DbHandle;
  auth: { authorization: string };
  /** The sandbox's callback key, derived from the service key as the server derives it. */
  callbackKey: Buffer;
}

/** purse_faults_pf_<time> on the machine's PostgreSQL, a server on it, a sandbox merchant and its token. */
export async function setUp(cleanups: Cleanups, env: Record<string, string>): Promise<Setup> {
  const name = `purse_faults_pf_${Date.now()}`;
  await admin(`CREATE DATABASE ${name}`);
  cleanups.after(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const secretKey = randomBytes(36).toString('base64url');
  const server = spawnServer(cleanups, {
    PORT: String(await freePort()),
    DATABASE_URL: url.toString(),
    PURSE_SECRET_KEY: secretKey,
    PURSE_BOOTSTRAP_MERCHANT: 'false',
    PURSE_SANDBOX_FAULTS: 'true',
    ...env,
  });
  await waitReady(server, 60_000);
  const db = createPostgresDb(url.toString(), 8);
  cleanups.after(() => db.close());
  const hashKey = deriveHashKey(secretKey);
  const merchants = createMerchantService({ db: db.db, clock: systemClock, hashKey });
  const created = await merchants.createMerchant({ name: 'Provider faults' });
  if (!created.ok) throw new Error(created.error);
  const auth = await tokenFor(server.base, created.value.client_id, created.value.client_secret);
  return { server, db, auth, callbackKey: sandboxCallbackKey(hashKey) };
}

/** Counts every answer; a 5xx is always unexpected here (no database outage in this scenario). */
export class Http {
  requests = 0;
  unexpected5xx = 0;
  readonly statuses: Record<string, number> = {};
  constructor(private readonly base: string) {}

  async send(
    method: string,
    path: string,
    body: string | undefined,
    headers: Record<string, string>,
  ): Promise<{ status: number; body: any }> {
    this.requests++;
    const res = await fetch(this.base + path, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await res.text();
    this.statuses[res.status] = (this.statuses[res.status] ?? 0) + 1;
    if (res.status >= 500) this.unexpected5xx++;
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }
}

export type Books = { provider_reference: string; outcome: string; failure_code: string | null; complete_at: Date | null };

/** The test as the sandbox provider: it settles in its own books, then calls Purse back. */
export class Provider {
  constructor(
    private readonly setup: Setup,
    private readonly http: Http,
  ) {}

  async books(idempotencyKey: string): Promise<Books[]> {
    const result = await sql<Books>`
      SELECT provider_reference, outcome, failure_code, complete_at FROM sandbox_provider_charges WHERE idempotency_key = ${idempotencyKey}`.execute(
      this.setup.db.db,
    );
    return result.rows;
  }

  /** The provider's truth changes now (what a real provider does before it sends its callback). */
  async settle(idempotencyKey: string, outcome: 'succeeded' | 'failed', failureCode: string | null = null): Promise<string> {
    const result = await sql<{ provider_reference: string }>`
      UPDATE sandbox_provider_charges SET outcome = ${outcome}, failure_code = ${failureCode}, complete_at = now()
      WHERE idempotency_key = ${idempotencyKey} RETURNING provider_reference`.execute(this.setup.db.db);
    const row = result.rows[0];
    if (!row) throw new Error(`the provider never saw ${idempotencyKey}`);
    return row.provider_reference;
  }

  sign(rawBody: string): string {
    return signSandboxCallback(this.setup.callbackKey, rawBody);
  }

  async callback(body: SandboxCallbackBody): Promise<number> {
    const rawBody = JSON.stringify(body);
    const res = await this.http.send('POST', '/provider-callbacks/sandbox', rawBody, {
      'content-type': 'application/json',
      'sandbox-signature': this.sign(rawBody),
    });
    return res.status;
  }

  /** Forgeries of a callback: unsigned, another key, a tampered body, another body's signature, junk. */
  async forgeries(body: SandboxCallbackBody, other: SandboxCallbackBody): Promise<number[]> {
    const rawBody = JSON.stringify(body);
    const json = { 'content-type': 'application/json' };
    const tampered = JSON.stringify({ ...body, provider_reference: `${body.provider_reference}x` });
    const attempts: [string, Record<string, string>][] = [
      [rawBody, json],
      [rawBody, { ...json, 'sandbox-signature': createHmac('sha256', randomBytes(32)).update(rawBody).digest('base64url') }],
      [tampered, { ...json, 'sandbox-signature': this.sign(rawBody) }],
      [rawBody, { ...json, 'sandbox-signature': this.sign(JSON.stringify(other)) }],
      [rawBody, { ...json, 'sandbox-signature': '' }],
      [rawBody, { ...json, 'sandbox-signature': this.sign(rawBody).slice(0, -1) }],
    ];
    const statuses: number[] = [];
    for (const [raw, headers] of attempts)
      statuses.push((await this.http.send('POST', '/provider-callbacks/sandbox', raw, headers)).status);
    return statuses;
  }
}

export interface ChargeState {
  id: string;
  status: string;
  failure_code: string | null;
  completed_at: Date | null;
  expires_at: Date | null;
  provider_reference: string | null;
  late_outcome: { status: string; failure_code: string | null } | null;
  postings: number;
  created_events: number;
  final_events: string[];
  /** `payment.late_outcome` events: one exactly when late_outcome is set. */
  late_events: number;
  books: number;
  books_outcome: string | null;
  books_reference: string | null;
}

/** Everything the checks need about the given charges, in one query. */
export async function chargeStates(db: DbHandle, ids: string[]): Promise<Map<string, ChargeState>> {
  if (ids.length === 0) return new Map();
  const result = await sql<ChargeState>`
    SELECT c.id, c.status, c.failure_code, c.completed_at, c.expires_at, c.provider_reference, c.late_outcome,
      (SELECT count(*)::int FROM ledger_transactions t WHERE t.source_id = c.id) AS postings,
      (SELECT count(*)::int FROM events e WHERE e.object_id = c.id AND e.type LIKE '%.created') AS created_events,
      coalesce((SELECT array_agg(e.type ORDER BY e.id) FROM events e
        WHERE e.object_id = c.id AND e.type NOT LIKE '%.created' AND e.type NOT LIKE '%.late_outcome'), '{}') AS final_events,
      (SELECT count(*)::int FROM events e WHERE e.object_id = c.id AND e.type LIKE '%.late_outcome') AS late_events,
      (SELECT count(*)::int FROM sandbox_provider_charges s WHERE s.idempotency_key = c.id) AS books,
      (SELECT s.outcome FROM sandbox_provider_charges s WHERE s.idempotency_key = c.id) AS books_outcome,
      (SELECT s.provider_reference FROM sandbox_provider_charges s WHERE s.idempotency_key = c.id) AS books_reference
    FROM charges c WHERE c.id IN (${sql.join(ids)})`.execute(db.db);
  return new Map(result.rows.map((r) => [r.id, r]));
}

/** Polls until none of the charges is pending, or the deadline; returns the states last read. */
export async function waitFinal(db: DbHandle, ids: string[], timeoutMs: number): Promise<Map<string, ChargeState>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await chargeStates(db, ids);
    if ([...states.values()].every((s) => s.status !== 'pending') || Date.now() > deadline) return states;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A payment body for the sandbox number ending in `suffix`. */
export function mobilePayment(runId: string, i: number, suffix: string) {
  return {
    reference: `${runId}-${i}`,
    amount: '25.00',
    currency: 'KES',
    payment_method: { type: 'mobile_money', mobile_money: { phone_number: `+25471${String(i % 1000).padStart(4, '0')}${suffix}` } },
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
