import { sql } from 'kysely';
import type { Db } from '../db/db.ts';
import { newId } from '../shared/ids.ts';
import { deliveriesFromEvents } from './outbox.ts';
import { type PageRequest, fetchPage } from '../shared/pagination.ts';

export const EVENT_TYPES = ['payment.created', 'payment.succeeded', 'payment.failed', 'topup.created', 'topup.succeeded', 'topup.failed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Writes one event in the caller's transaction, together with the state change it reports, and
 * fans it out into the delivery outbox in the same statement: one row per enabled endpoint of
 * the merchant subscribed to the type, plus the object's callback_url. An event and its
 * deliveries exist if and only if the change committed.
 */
export async function recordEvent(
  trx: Db,
  event: { merchantId: string; type: EventType; object: { id: string; livemode: boolean; callback_url?: string | null }; createdAt: Date },
): Promise<string> {
  const id = newId('event');
  const callbackUrl = event.object.callback_url ?? null;
  await sql`
    WITH evs AS (
      INSERT INTO events (id, merchant_id, type, object_id, data, livemode, created_at)
      VALUES (${id}, ${event.merchantId}, ${event.type}, ${event.object.id}, ${JSON.stringify({ object: event.object })}::json,
              ${event.object.livemode}, ${event.createdAt})
      RETURNING id, type
    )
    ${deliveriesFromEvents(event.merchantId, callbackUrl, event.createdAt)}`.execute(trx);
  return id;
}

export async function findEvent(db: Db, merchantId: string, id: string) {
  return db.selectFrom('events').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
}

export async function listEvents(db: Db, merchantId: string, filters: { type?: string; objectId?: string }, page: PageRequest) {
  let q = db.selectFrom('events').selectAll().where('merchant_id', '=', merchantId);
  if (filters.type !== undefined) q = q.where('type', '=', filters.type);
  if (filters.objectId !== undefined) q = q.where('object_id', '=', filters.objectId);
  return fetchPage(q, 'id', page);
}
