import type { Db } from '../db/db.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';

export const EVENT_TYPES = [
  'payment.created',
  'payment.succeeded',
  'payment.failed',
  'topup.created',
  'topup.succeeded',
  'topup.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export async function findEvent(db: Db, merchantId: string, id: string) {
  return db.selectFrom('events').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
}

export async function listEvents(db: Db, merchantId: string, filters: { type?: string; objectId?: string }, page: PageRequest) {
  let q = db.selectFrom('events').selectAll().where('merchant_id', '=', merchantId);
  if (filters.type !== undefined) q = q.where('type', '=', filters.type);
  if (filters.objectId !== undefined) q = q.where('object_id', '=', filters.objectId);
  return fetchPage(q, 'id', page);
}
