import { type Insertable, sql } from 'kysely';
import type { Db } from '../db/db.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { ChargeStatus, CheckoutSessionStatus, CheckoutSessionsTable } from '../db/schema.ts';
import { type EventType, insertEvents } from '../events/store.ts';
import { newId } from '../shared/ids.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';
import { deliveriesFor } from '../webhooks/store.ts';
import type { SessionRow } from './view.ts';

/** Inserts a session; undefined when its reference is taken (the unique index decides). */
export async function insertSession(db: Db, row: Insertable<CheckoutSessionsTable>): Promise<SessionRow | undefined> {
  try {
    return await db.insertInto('checkout_sessions').values(row).returningAll().executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error, 'checkout_sessions_reference')) return undefined;
    throw error;
  }
}

export async function findSession(db: Db, merchantId: string, id: string) {
  return db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
}

export async function findSessionByTokenHash(db: Db, tokenHash: string) {
  return db.selectFrom('checkout_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function findSessionByReference(db: Db, merchantId: string, reference: string) {
  return db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('reference', '=', reference)
    .executeTakeFirst();
}

export interface SessionFilters {
  reference?: string;
  status?: CheckoutSessionStatus;
  paymentLinkId?: string;
  createdGte?: Date;
  createdLte?: Date;
}

export async function listSessions(db: Db, merchantId: string, filters: SessionFilters, page: PageRequest) {
  let q = db.selectFrom('checkout_sessions').selectAll().where('merchant_id', '=', merchantId);
  if (filters.reference !== undefined) q = q.where('reference', '=', filters.reference);
  if (filters.status !== undefined) q = q.where('status', '=', filters.status);
  if (filters.paymentLinkId !== undefined) q = q.where('payment_link_id', '=', filters.paymentLinkId);
  if (filters.createdGte !== undefined) q = q.where('created_at', '>=', filters.createdGte);
  if (filters.createdLte !== undefined) q = q.where('created_at', '<=', filters.createdLte);
  return fetchPage(q, 'id', page);
}

/** The statuses of the payments that completed these sessions, by payment id. */
export async function paymentStates(db: Db, merchantId: string, paymentIds: string[]): Promise<Map<string, ChargeStatus>> {
  if (paymentIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('charges')
    .select(['id', 'status'])
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', 'payment')
    .where('id', 'in', paymentIds)
    .execute();
  return new Map(rows.map((r) => [r.id, r.status]));
}

/**
 * An attempt being created holds the session for `until`, which keeps `expire` (API or worker)
 * from ending it while the payment is on its way. Undefined: the session is not open or expired.
 */
export async function leaseAttempt(db: Db, id: string, now: Date, until: Date): Promise<SessionRow | undefined> {
  return db
    .updateTable('checkout_sessions')
    .set({ attempt_lease_until: until, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'open')
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

export async function releaseLease(db: Db, id: string): Promise<void> {
  await db.updateTable('checkout_sessions').set({ attempt_lease_until: null }).where('id', '=', id).execute();
}

/** A session change's event: its type and the session as it reads after the change (rendered by the service). */
export interface SessionEvent {
  type: EventType;
  payload: string;
}

/** The event of an updated session (`upd s`) and its deliveries, as CTEs after `upd`. */
function eventCtes(event: SessionEvent, at: string) {
  const when = sql`${at}::timestamptz`;
  return sql`evs AS (${insertEvents(
    sql`upd s`,
    { merchantId: sql`s.merchant_id`, objectId: sql`s.id`, livemode: sql`s.livemode`, at: when },
    [{ id: newId('event'), type: event.type, payload: event.payload }],
  )}
    ), deliveries AS (${deliveriesFor(sql`evs ev`, { from: sql`upd s`, on: sql`s.id = ev.object_id`, url: sql`NULL::text` })})`;
}

/**
 * Completes an open session with the payment that paid it, with its event, in one statement.
 * The conditional update decides: of concurrent completions exactly one changes the row and
 * writes checkout_session.completed. Undefined: it was not open.
 */
export async function completeSession(db: Db, id: string, paymentId: string, now: Date, event: SessionEvent) {
  const at = now.toISOString();
  const result = await sql<SessionRow>`
    WITH upd AS (
      UPDATE checkout_sessions SET status = 'complete', payment_id = ${paymentId}, completed_at = ${at}::timestamptz,
        updated_at = ${at}::timestamptz, attempt_lease_until = NULL
      WHERE id = ${id} AND status = 'open'
      RETURNING *
    ), ${eventCtes(event, at)}
    SELECT * FROM upd`.execute(db);
  return result.rows[0];
}

/**
 * The payment of attempt `n` failed: the session counts it, once (the condition on the count
 * makes a second sync of the same failure change nothing). The fifth failure expires the
 * session, with its event, in the same statement. Undefined: already counted, or not open.
 */
export async function countFailedAttempt(db: Db, id: string, n: number, now: Date, expired: SessionEvent, maxFailed: number) {
  const at = now.toISOString();
  const last = n >= maxFailed;
  const update = sql`
      UPDATE checkout_sessions SET failed_attempts = ${n}::int, updated_at = ${at}::timestamptz,
        status = ${last ? 'expired' : 'open'}, completed_at = ${last ? at : null}::timestamptz
      WHERE id = ${id} AND status = 'open' AND failed_attempts = ${n - 1}::int
      RETURNING *`;
  const result = last
    ? await sql<SessionRow>`WITH upd AS (${update}), ${eventCtes(expired, at)} SELECT * FROM upd`.execute(db)
    : await sql<SessionRow>`${update}`.execute(db);
  return result.rows[0];
}

/**
 * Expires an open session, with checkout_session.expired, in one statement, unless an attempt is
 * on its way (a lease not yet over) or its payment is still alive (pending, waiting for 3-D
 * Secure, or already paid): that payment decides first. Undefined: nothing changed.
 */
export async function expireSession(db: Db, id: string, now: Date, event: SessionEvent) {
  const at = now.toISOString();
  const result = await sql<SessionRow>`
    WITH upd AS (
      UPDATE checkout_sessions s SET status = 'expired', completed_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
      WHERE s.id = ${id} AND s.status = 'open'
        AND (s.attempt_lease_until IS NULL OR s.attempt_lease_until <= ${at}::timestamptz)
        AND NOT EXISTS (
          SELECT 1 FROM charges c
          WHERE c.merchant_id = s.merchant_id AND c.kind = 'payment'
            AND c.reference = s.reference || '/attempt-' || (s.failed_attempts + 1)
            AND c.status NOT IN ('failed', 'canceled'))
      RETURNING s.*
    ), ${eventCtes(event, at)}
    SELECT * FROM upd`.execute(db);
  return result.rows[0];
}

/**
 * Open sessions the worker should look at: past their expiry, or whose current attempt's
 * payment has reached a state that decides something (paid, authorised, failed, canceled).
 */
export async function findSessionsToSync(db: Db, now: Date, limit: number): Promise<SessionRow[]> {
  const result = await sql<SessionRow>`
    SELECT s.* FROM checkout_sessions s
    WHERE s.status = 'open' AND (s.expires_at <= ${now.toISOString()}::timestamptz OR EXISTS (
      SELECT 1 FROM charges c
      WHERE c.merchant_id = s.merchant_id AND c.kind = 'payment'
        AND c.reference = s.reference || '/attempt-' || (s.failed_attempts + 1)
        AND c.status IN ('succeeded', 'requires_capture', 'failed', 'canceled')))
    ORDER BY s.expires_at
    LIMIT ${limit}`.execute(db);
  return result.rows;
}
