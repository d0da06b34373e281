import type { Db } from '../../db/db.ts';
import type { OutflowKind, OutflowStatus } from '../../db/schema.ts';
import { fetchPage, type PageRequest } from '../../shared/pagination.ts';

export async function findOutflow(db: Db, merchantId: string, kind: OutflowKind, id: string) {
  return db
    .selectFrom('outflows')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
    .executeTakeFirst();
}

/**
 * Reconciliation's window: every refund or payout of a provider created since `since`, and every one still
 * pending whenever it was created, oldest first, at most `limit`.
 */
export async function findOutflowsToReconcile(db: Db, provider: string, since: Date, limit: number) {
  return db
    .selectFrom('outflows')
    .selectAll()
    .where('provider', '=', provider)
    .where((eb) => eb.or([eb('created_at', '>=', since), eb('status', '=', 'pending')]))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function findOutflowById(db: Db, id: string) {
  return db.selectFrom('outflows').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findOutflowByReference(db: Db, merchantId: string, kind: OutflowKind, reference: string) {
  return db
    .selectFrom('outflows')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
    .where('reference', '=', reference)
    .executeTakeFirst();
}

export interface OutflowFilters {
  reference?: string;
  status?: OutflowStatus;
  paymentId?: string;
  createdGte?: Date;
  createdLte?: Date;
}

export async function listOutflows(db: Db, merchantId: string, kind: OutflowKind, filters: OutflowFilters, page: PageRequest) {
  let q = db.selectFrom('outflows').selectAll().where('merchant_id', '=', merchantId).where('kind', '=', kind);
  if (filters.reference !== undefined) q = q.where('reference', '=', filters.reference);
  if (filters.status !== undefined) q = q.where('status', '=', filters.status);
  if (filters.paymentId !== undefined) q = q.where('payment_id', '=', filters.paymentId);
  if (filters.createdGte !== undefined) q = q.where('created_at', '>=', filters.createdGte);
  if (filters.createdLte !== undefined) q = q.where('created_at', '<=', filters.createdLte);
  return fetchPage(q, 'id', page);
}
