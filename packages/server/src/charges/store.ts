import { sql } from 'kysely';
import type { Db } from '../db/db.ts';
import type { ChargeKind, ChargeStatus, MethodType } from '../db/schema.ts';
import { type PageRequest, fetchPage } from '../shared/pagination.ts';
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

/** Inserts the claim; undefined when the reference is taken (the unique index decides). */
export async function insertCharge(db: Db, c: NewCharge): Promise<ChargeRow | undefined> {
  return db
    .insertInto('charges')
    .values({
      id: c.id,
      kind: c.kind,
      merchant_id: c.merchantId,
      reference: c.reference,
      request_fingerprint: JSON.stringify(c.fingerprint),
      status: 'pending',
      amount: c.amountMinor,
      currency: c.currency,
      method_type: c.methodType,
      method: JSON.stringify(c.method),
      wallet_id: c.walletId,
      customer: c.customer === null ? null : JSON.stringify(c.customer),
      description: c.description,
      metadata: JSON.stringify(c.metadata),
      callback_url: c.callbackUrl,
      provider: c.provider,
      livemode: c.livemode,
      created_at: c.now,
      updated_at: c.now,
      expires_at: c.expiresAt,
      lease_until: c.leaseUntil,
      next_check_at: c.nextCheckAt,
    })
    .onConflict((oc) => oc.columns(['merchant_id', 'kind', 'reference']).doNothing())
    .returningAll()
    .executeTakeFirst();
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
  return db.selectFrom('charges').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).where('kind', '=', kind).executeTakeFirst();
}

export async function findChargeById(db: Db, id: string) {
  return db.selectFrom('charges').selectAll().where('id', '=', id).executeTakeFirst();
}

/** pending → final, once. Undefined when the charge was already final (nothing changes). */
export async function finishCharge(
  db: Db,
  id: string,
  outcome: { status: Exclude<ChargeStatus, 'pending'>; failureCode: string | null; failureMessage: string | null; providerReference: string | null },
  now: Date,
) {
  return db
    .updateTable('charges')
    .set({
      status: outcome.status,
      failure_code: outcome.failureCode,
      failure_message: outcome.failureMessage,
      provider_reference: sql`coalesce(${outcome.providerReference}, provider_reference)`,
      completed_at: now,
      updated_at: now,
      lease_until: null,
      next_check_at: null,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/** The provider accepted the request and has not settled it yet. */
export async function markInitiated(db: Db, id: string, providerReference: string, nextCheckAt: Date, now: Date) {
  return db
    .updateTable('charges')
    .set({ provider_reference: providerReference, provider_state: 'initiated', next_check_at: nextCheckAt, lease_until: null, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/** Hands the charge to the worker: the lease is dropped and it is looked at again at `nextCheckAt`. */
export async function releaseCharge(db: Db, id: string, nextCheckAt: Date): Promise<void> {
  await db.updateTable('charges').set({ lease_until: null, next_check_at: nextCheckAt }).where('id', '=', id).where('status', '=', 'pending').execute();
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
