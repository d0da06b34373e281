import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../db/db.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';

/** Every event type Purse writes. Adding one is one line here; every writer is checked against it. */
export const EVENT_TYPES = [
  'payment.created',
  'payment.succeeded',
  'payment.failed',
  'payment.requires_action',
  'payment.requires_capture',
  'payment.captured',
  'payment.canceled',
  'topup.created',
  'topup.succeeded',
  'topup.failed',
  'payment.late_outcome',
  'topup.late_outcome',
  'transfer.succeeded',
  'transfer.failed',
  'refund.created',
  'refund.succeeded',
  'refund.failed',
  'refund.late_outcome',
  'payout.created',
  'payout.succeeded',
  'payout.failed',
  'payout.late_outcome',
  'checkout_session.completed',
  'checkout_session.expired',
  'webhook_endpoint.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The kinds of object events are about ('payment', 'topup', 'transfer', 'refund', …), read off the list. */
export type EventObject = EventType extends `${infer O}.${string}` ? O : never;

/**
 * The type of the event for a change of an object: `eventType(kind, 'succeeded')`. It only
 * compiles when the type exists for every kind `kind` can be, so a writer can never produce a
 * type missing from EVENT_TYPES.
 */
export function eventType<O extends EventObject, C extends string>(
  object: O,
  change: `${O}.${C}` extends EventType ? C : never,
): `${O}.${C}` & EventType {
  return `${object}.${change}` as `${O}.${C}` & EventType;
}

/** The type of an event whose change is only known inside the statement, one type per outcome. */
export function eventTypeCase(on: RawBuilder<unknown>, types: Record<string, EventType>): RawBuilder<string> {
  const cases = Object.entries(types).map(([when, type]) => sql`WHEN ${when} THEN ${type}`);
  return sql<string>`(CASE ${on} ${sql.join(cases, sql` `)} END)`;
}

/** One event of an insert: its type and payload may be chosen inside the statement. */
export interface NewEvent {
  /** The id, or an expression over `from`'s columns (a statement over many items). */
  id: string | RawBuilder<string>;
  type: EventType | RawBuilder<string>;
  /** JSON of `{ object }` (see eventPayload), or an expression choosing one. */
  payload: string | RawBuilder<string>;
}

/**
 * The body of an `evs AS (…)` CTE inserting `events` about one object: one row per event for
 * each row of `from` (none when `from` is empty). Returns `id, type`, which the webhook fan-out
 * reads. Expressions name columns of `from`.
 */
export function insertEvents(
  from: RawBuilder<unknown>,
  object: { merchantId: RawBuilder<unknown>; objectId: RawBuilder<unknown>; livemode: RawBuilder<unknown>; at: RawBuilder<unknown> },
  events: NewEvent[],
): RawBuilder<unknown> {
  const rows = events.map(
    (e) =>
      sql`SELECT ${e.id}::text, ${object.merchantId}, ${e.type}::text, ${object.objectId}, ${e.payload}::json, ${object.livemode}, ${object.at}
      FROM ${from}`,
  );
  return sql`
    INSERT INTO events (id, merchant_id, type, object_id, data, livemode, created_at)
    ${sql.join(rows, sql` UNION ALL `)}
    RETURNING id, type, merchant_id, object_id, created_at`;
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
