import { type RawBuilder, sql } from 'kysely';
import { type Db, inTransaction } from '../db/db.ts';
import { typeIdSql } from '../shared/ids.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';

/** Webhook endpoints a merchant may have (not deleted), per mode. */
export const MAX_ENDPOINTS = 16;

/**
 * Inserts the endpoint unless the merchant already has MAX_ENDPOINTS: the merchant's row is locked
 * for the count and the insert, so concurrent creations are serialised by the database and the
 * limit holds. Returns null when the limit is reached.
 */
export async function insertEndpointWithinLimit(db: Db, row: Parameters<typeof insertEndpoint>[1]) {
  return inTransaction(db, async (trx) => {
    await trx.selectFrom('merchants').select('id').where('id', '=', row.merchantId).forUpdate().executeTakeFirst();
    const { n } = await trx
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('merchant_id', '=', row.merchantId)
      .where('livemode', '=', row.livemode)
      .where('status', '!=', 'deleted')
      .executeTakeFirstOrThrow();
    if (Number(n) >= MAX_ENDPOINTS) return null;
    return insertEndpoint(trx as unknown as Db, row);
  });
}

export async function insertEndpoint(
  db: Db,
  row: {
    id: string;
    merchantId: string;
    url: string;
    events: string[];
    description: string | null;
    secretEnc: string;
    livemode: boolean;
    now: Date;
  },
) {
  return db
    .insertInto('webhook_endpoints')
    .values({
      id: row.id,
      merchant_id: row.merchantId,
      url: row.url,
      events: row.events,
      description: row.description,
      status: 'enabled',
      secret_enc: row.secretEnc,
      livemode: row.livemode,
      created_at: row.now,
      updated_at: row.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findEndpoint(db: Db, merchantId: string, id: string) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .where('status', '<>', 'deleted')
    .executeTakeFirst();
}

export async function listEndpoints(db: Db, merchantId: string, page: PageRequest) {
  return fetchPage(
    db.selectFrom('webhook_endpoints').selectAll().where('merchant_id', '=', merchantId).where('status', '<>', 'deleted'),
    'id',
    page,
  );
}

export async function updateEndpoint(
  db: Db,
  merchantId: string,
  id: string,
  set: Partial<{
    status: 'enabled' | 'disabled' | 'deleted';
    url: string;
    events: string[];
    description: string | null;
    secret_enc: string;
    previous_secret_enc: string | null;
    previous_secret_expires_at: Date | null;
  }>,
  now: Date,
) {
  return db
    .updateTable('webhook_endpoints')
    .set({ ...set, updated_at: now })
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .where('status', '<>', 'deleted')
    .returningAll()
    .executeTakeFirst();
}

/** Pending deliveries of a deleted endpoint will not be sent. */
export async function failPendingDeliveries(db: Db, endpointId: string, reason: string, now: Date): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: reason, next_attempt_at: null, lease_until: null, updated_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}

export type DeliveryRow = Awaited<ReturnType<typeof claimDueDeliveries>>[number];

/** Claims due deliveries; SKIP LOCKED and the lease keep two processes off the same attempt. */
export async function claimDueDeliveries(db: Db, now: Date, leaseUntil: Date, limit: number) {
  const result = await sql<{
    id: string;
    event_id: string;
    merchant_id: string;
    endpoint_id: string | null;
    url: string;
    attempts: number;
  }>`
    UPDATE webhook_deliveries SET lease_until = ${leaseUntil}, attempts = attempts + 1, updated_at = ${now}
    WHERE id IN (
      SELECT id FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until < ${now})
      ORDER BY next_attempt_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING id, event_id, merchant_id, endpoint_id, url, attempts`.execute(db);
  return result.rows;
}

export async function recordAttempt(
  db: Db,
  delivery: { id: string },
  attempt: { at: Date; statusCode: number | null; latencyMs: number; error: string | null; responseExcerpt?: string | null },
  next: { status: 'pending' | 'delivered' | 'failed'; nextAttemptAt: Date | null },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: delivery.id,
        attempted_at: attempt.at,
        status_code: attempt.statusCode,
        latency_ms: attempt.latencyMs,
        error: attempt.error,
        response_excerpt: attempt.responseExcerpt ?? null,
      })
      .execute();
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status: next.status,
        next_attempt_at: next.nextAttemptAt,
        lease_until: null,
        last_status_code: attempt.statusCode,
        last_error: attempt.error,
        updated_at: attempt.at,
        delivered_at: next.status === 'delivered' ? attempt.at : null,
      })
      .where('id', '=', delivery.id)
      .execute();
  });
}

export async function listDeliveries(db: Db, eventId: string) {
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('event_id', '=', eventId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const attempts =
    deliveries.length === 0
      ? []
      : await db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where(
            'delivery_id',
            'in',
            deliveries.map((d) => d.id),
          )
          .orderBy('id')
          .execute();
  return { deliveries, attempts };
}

/** Redeliver: every delivery of the event becomes due now, and current endpoints without one get one. */
export async function scheduleRedelivery(
  db: Db,
  ev: { id: string; merchant_id: string; type: string },
  callbackUrl: string | null,
  now: Date,
) {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('webhook_deliveries')
      // Due now, on the schedule where it stands: the attempts already made still count, so a
      // delivery whose schedule ran out gets one attempt per redelivery, never a fresh set of
      // retries (redeliver cannot be used to multiply traffic to a failing endpoint). A delivery
      // being sent right now keeps its claim (that send is the redelivery), so two workers never
      // send it at once.
      .set({ status: 'pending', next_attempt_at: now, updated_at: now, delivered_at: null })
      .where('event_id', '=', ev.id)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .where((eb) =>
        eb.or([
          eb('endpoint_id', 'is', null),
          eb('endpoint_id', 'in', eb.selectFrom('webhook_endpoints').select('id').where('status', '=', 'enabled')),
        ]),
      )
      .execute();
    // The event as `ev`, with the redelivery's time as the deliveries' time.
    const event = sql`(VALUES (${ev.id}::text, ${ev.type}::text, ${ev.merchant_id}::text, ${now}::timestamptz))
      AS ev (id, type, merchant_id, created_at)`;
    const callback = { from: sql`(SELECT ${callbackUrl}::text AS url) c`, on: sql`true`, url: sql`c.url` };
    await sql`${deliveriesFor(event, callback)} ON CONFLICT DO NOTHING`.execute(trx);
  });
}

/**
 * The fan-out of events to their deliveries, as an INSERT: one delivery per enabled endpoint of
 * the event's merchant subscribed to its type, plus one to the object's callback URL. `events`
 * is a FROM item named `ev` with columns id, type, merchant_id and created_at (the deliveries'
 * time): the events CTE of a statement that writes events (so an event and its deliveries commit
 * together), or one stored event to redeliver. Each object's callback URL is `callback.url`,
 * read from `callback.from` joined `on` its event. Every value may be an expression, so a merged
 * statement carries no values of its own (db/group-commit.ts MergedWrite).
 */
export function deliveriesFor(
  events: RawBuilder<unknown>,
  callback: { from: RawBuilder<unknown>; on: RawBuilder<unknown>; url: RawBuilder<unknown> },
): RawBuilder<unknown> {
  const id = typeIdSql('delivery', 'ev.created_at');
  return sql`
    INSERT INTO webhook_deliveries (id, event_id, merchant_id, endpoint_id, url, status, next_attempt_at, created_at, updated_at)
    SELECT ${id}, ev.id, ev.merchant_id, e.id, e.url, 'pending', ev.created_at, ev.created_at, ev.created_at
    FROM ${events} JOIN webhook_endpoints e
      ON e.merchant_id = ev.merchant_id AND e.status = 'enabled' AND (cardinality(e.events) = 0 OR ev.type = ANY (e.events))
    UNION ALL
    SELECT ${id}, ev.id, ev.merchant_id, NULL, ${callback.url}, 'pending', ev.created_at, ev.created_at, ev.created_at
    FROM ${events} JOIN ${callback.from} ON ${callback.on} WHERE ${callback.url} IS NOT NULL`;
}

/**
 * A test event for one endpoint: the event and its single delivery in one statement, so the
 * endpoint's own subscription list and the merchant's other endpoints play no part.
 */
export async function insertTestEvent(
  db: Db,
  row: { eventId: string; merchantId: string; endpoint: { id: string; url: string }; livemode: boolean; payload: string; now: Date },
): Promise<void> {
  const clock = sql`(SELECT ${row.now}::timestamptz AS at) t`;
  await sql`
    WITH ev AS (
      INSERT INTO events (id, merchant_id, type, object_id, data, livemode, created_at)
      VALUES (${row.eventId}, ${row.merchantId}, 'webhook_endpoint.test', ${row.endpoint.id}, ${row.payload}::json, ${row.livemode}, ${row.now})
      RETURNING id
    )
    INSERT INTO webhook_deliveries (id, event_id, merchant_id, endpoint_id, url, status, next_attempt_at, created_at, updated_at)
    SELECT ${typeIdSql('delivery', 't.at')}, ev.id, ${row.merchantId}, ${row.endpoint.id}, ${row.endpoint.url}, 'pending', t.at, t.at, t.at
    FROM ev CROSS JOIN ${clock}`.execute(db);
}
