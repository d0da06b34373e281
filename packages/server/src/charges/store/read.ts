import type pg from 'pg';
import { type BatchedRead, createBatchedRead } from '../../db/batched-read.ts';
import type { Db } from '../../db/db.ts';
import type { ChargeKind, ChargeStatus, MethodType } from '../../db/schema.ts';
import { fetchPage, type PageRequest } from '../../shared/pagination.ts';
import type { ChargeRow } from '../view.ts';

export async function findChargeByReference(db: Db, merchantId: string, kind: ChargeKind, reference: string) {
  return db
    .selectFrom('charges')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
    .where('reference', '=', reference)
    .executeTakeFirst();
}

/**
 * One charge by id for a read (a GET, a refund's payment): lookups batched while others are in flight
 * (db/batched-read.ts). A row of another merchant or of the other kind answers nothing, exactly
 * as an unknown id.
 */
export type ChargeReader = BatchedRead<{ id: string; merchantId: string; kind: ChargeKind }, ChargeRow>;

export function createChargeReader(pool: pg.Pool): ChargeReader {
  return createBatchedRead({
    pool,
    text: 'SELECT * FROM charges WHERE id = ANY($1::text[])',
    accept: (lookup, row: ChargeRow) => row.merchant_id === lookup.merchantId && row.kind === lookup.kind,
    maxInFlight: 2,
    maxBatch: 256,
  });
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

/**
 * Reconciliation's window: every charge of a provider created since `since`, and every one still
 * pending whenever it was created, oldest first, at most `limit`.
 */
export async function findChargesToReconcile(db: Db, provider: string, since: Date, limit: number) {
  return db
    .selectFrom('charges')
    .selectAll()
    .where('provider', '=', provider)
    .where((eb) => eb.or([eb('created_at', '>=', since), eb('status', '=', 'pending')]))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function findChargeById(db: Db, id: string) {
  return db.selectFrom('charges').selectAll().where('id', '=', id).executeTakeFirst();
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
