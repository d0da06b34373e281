import { sql } from 'kysely';
import type { Db } from '../db/db.ts';
import type { ChargeKind, ChargeStatus, MethodType } from '../db/schema.ts';
import { deliveriesFromEvents } from '../events/outbox.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';
import type { ChargeRow } from './view.ts';

export interface NewCharge {
  id: string;
  kind: ChargeKind;
  merchantId: string;
  reference: string;
  fingerprint: Record<string, string>;
  amountMinor: bigint;
  currency: string;
  methodType: MethodType;
  method: unknown;
  walletId: string | null;
  customer: unknown;
  description: string | null;
  metadata: unknown;
  callbackUrl: string | null;
  provider: string;
  livemode: boolean;
  now: Date;
  expiresAt: Date | null;
  leaseUntil: Date | null;
  nextCheckAt: Date | null;
}

export interface ClaimEvent {
  id: string;
  type: string;
  /** JSON of `{ object }` as the event reports it. */
  payload: string;
}

/**
 * The claim in ONE statement: the charge row (pending, or already final when no provider call
 * is needed), its events and their outbox rows. Undefined when the reference is taken: ON
 * CONFLICT DO NOTHING lets the unique index decide, and then no event is written either.
 */
export async function claimCharge(
  db: Db,
  c: NewCharge & { final: { status: 'failed'; failureCode: string; failureMessage: string } | null },
  events: ClaimEvent[],
): Promise<ChargeRow | undefined> {
  const now = sql`${c.now}::timestamptz`;
  const rows = sql.join(events.map((e) => sql`(${e.id}, ${e.type}, ${e.payload})`));
  const result = await sql<ChargeRow>`
    WITH ins AS (
      INSERT INTO charges (id, kind, merchant_id, reference, request_fingerprint, status, amount, currency, method_type, method,
                           wallet_id, customer, description, metadata, callback_url, failure_code, failure_message, provider,
                           livemode, created_at, updated_at, completed_at, expires_at, lease_until, next_check_at)
      VALUES (${c.id}, ${c.kind}, ${c.merchantId}, ${c.reference}, ${JSON.stringify(c.fingerprint)}::jsonb,
              ${c.final ? 'failed' : 'pending'}, ${c.amountMinor.toString()}::bigint, ${c.currency}, ${c.methodType},
              ${JSON.stringify(c.method)}::jsonb, ${c.walletId}, ${c.customer === null ? null : JSON.stringify(c.customer)}::jsonb,
              ${c.description}, ${JSON.stringify(c.metadata)}::jsonb, ${c.callbackUrl}, ${c.final?.failureCode ?? null},
              ${c.final?.failureMessage ?? null}, ${c.provider}, ${c.livemode}, ${now}, ${now}, ${c.final ? c.now : null}::timestamptz,
              ${c.expiresAt}::timestamptz, ${c.final ? null : c.leaseUntil}::timestamptz, ${c.final ? null : c.nextCheckAt}::timestamptz)
      ON CONFLICT (merchant_id, kind, reference) DO NOTHING
      RETURNING *
    ), evs AS (
      INSERT INTO events (id, merchant_id, type, object_id, data, livemode, created_at)
      SELECT v.id, ins.merchant_id, v.type, ins.id, v.payload::json, ins.livemode, ins.created_at
      FROM ins, (VALUES ${rows}) AS v (id, type, payload)
      RETURNING id, type
    ), deliveries AS (${deliveriesFromEvents(c.merchantId, c.callbackUrl, c.now)})
    SELECT * FROM ins`.execute(db);
  return result.rows[0];
}

export async function findChargeByReference(db: Db, merchantId: string, kind: ChargeKind, reference: string) {
  return db
    .selectFrom('charges')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
    .where('reference', '=', reference)
    .executeTakeFirst();
}

export async function findCharge(db: Db, merchantId: string, kind: ChargeKind, id: string) {
  return db
    .selectFrom('charges')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
    .executeTakeFirst();
}

export async function findChargeById(db: Db, id: string) {
  return db.selectFrom('charges').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The provider accepted the request and has not settled it yet. */
export async function markInitiated(db: Db, id: string, providerReference: string, nextCheckAt: Date, now: Date) {
  return db
    .updateTable('charges')
    .set({
      provider_reference: providerReference,
      provider_state: 'initiated',
      next_check_at: nextCheckAt,
      lease_until: null,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/** Hands the charge to the worker: the lease is dropped and it is looked at again at `nextCheckAt`. */
export async function releaseCharge(db: Db, id: string, nextCheckAt: Date): Promise<void> {
  await db
    .updateTable('charges')
    .set({ lease_until: null, next_check_at: nextCheckAt })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** Takes the lease of a pending charge whose previous holder is gone (or never had one). */
export async function claimLease(db: Db, id: string, now: Date, leaseUntil: Date) {
  return db
    .updateTable('charges')
    .set({ lease_until: leaseUntil, attempts: sql`attempts + 1` })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .returningAll()
    .executeTakeFirst();
}

/**
 * Claims up to `limit` due pending charges for this worker. SKIP LOCKED lets several server
 * processes share the queue; the lease keeps a request that is still calling the provider safe.
 */
export async function claimDueCharges(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<ChargeRow[]> {
  const result = await sql<ChargeRow>`
    UPDATE charges SET lease_until = ${leaseUntil}, attempts = attempts + 1,
      next_check_at = ${now}::timestamptz + make_interval(secs => least(300, power(2, least(attempts, 8))))
    WHERE id IN (
      SELECT id FROM charges
      WHERE status = 'pending' AND next_check_at <= ${now} AND (lease_until IS NULL OR lease_until < ${now})
      ORDER BY next_check_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING *`.execute(db);
  return result.rows;
}

/** A provider outcome that contradicts a final state: kept for reconciliation, never applied. */
export async function recordLateOutcome(db: Db, id: string, outcome: unknown, now: Date): Promise<void> {
  await db
    .updateTable('charges')
    .set({ late_outcome: JSON.stringify({ ...(outcome as object), received_at: now.toISOString() }), updated_at: now })
    .where('id', '=', id)
    .where('late_outcome', 'is', null)
    .execute();
}

export interface ChargeFilters {
  reference?: string;
  status?: ChargeStatus;
  methodType?: MethodType;
  createdGte?: Date;
  createdLte?: Date;
}

export async function listCharges(db: Db, merchantId: string, kind: ChargeKind, filters: ChargeFilters, page: PageRequest) {
  let q = db.selectFrom('charges').selectAll().where('merchant_id', '=', merchantId).where('kind', '=', kind);
  if (filters.reference !== undefined) q = q.where('reference', '=', filters.reference);
  if (filters.status !== undefined) q = q.where('status', '=', filters.status);
  if (filters.methodType !== undefined) q = q.where('method_type', '=', filters.methodType);
  if (filters.createdGte !== undefined) q = q.where('created_at', '>=', filters.createdGte);
  if (filters.createdLte !== undefined) q = q.where('created_at', '<=', filters.createdLte);
  return fetchPage(q, 'id', page);
}
