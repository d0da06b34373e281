import { randomBytes } from 'node:crypto';
import type { Db } from '../db/db.ts';
import type { SessionState } from '../db/schema.ts';
import { type CookieOptions, readCookie, serializeCookie } from '../shared/cookies.ts';
import { constantTimeEqual, keyedHash } from '../shared/secrets.ts';
import { ROLES } from './roles.ts';
import { USER_COLUMNS } from './store.ts';

export type { SessionState };

/** The session cookie: 256 random bits, base64url; only its keyed hash is stored (dashboard_sessions.id). */
export const SESSION_COOKIE = 'purse_session';
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;
const COOKIE_PATH = '/dashboard';

/** A session waiting for its second factor or TOTP enrolment lives at most this long. */
export const PENDING_SESSION_S = 600;

/** The cookie value sent with a request, when it has the cookie's shape. */
export const sessionCookieOf = (header: string | undefined) => readCookie(header, SESSION_COOKIE, COOKIE_VALUE);

const cookieOptions = (secure: boolean): CookieOptions => ({ path: COOKIE_PATH, sameSite: 'Strict', secure });

export const setSessionCookie = (value: string, secure: boolean) => serializeCookie(SESSION_COOKIE, value, cookieOptions(secure));
export const clearSessionCookie = (secure: boolean) => serializeCookie(SESSION_COOKIE, '', { ...cookieOptions(secure), maxAgeS: 0 });

/** A session's value, its stored id, and its CSRF token (an HMAC of the value with the service key). */
export function sessionSecrets(hashKey: Buffer) {
  return {
    newValue: () => randomBytes(32).toString('base64url'),
    idOf: (value: string) => keyedHash(hashKey, `session:${value}`),
    csrfOf: (value: string) => keyedHash(hashKey, `csrf:${value}`),
    csrfMatches: (value: string, sent: string | undefined) =>
      sent !== undefined && constantTimeEqual(keyedHash(hashKey, `csrf:${value}`), sent),
  };
}

export async function insertSession(
  db: Db,
  row: { id: string; userId: string; merchantId: string; state: SessionState; now: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('dashboard_sessions')
    .values({
      id: row.id,
      user_id: row.userId,
      merchant_id: row.merchantId,
      state: row.state,
      created_at: row.now,
      last_seen_at: row.now,
      expires_at: row.expiresAt,
    })
    .execute();
}

/** The session with its user and merchant, when it is not revoked (its limits are judged by the caller). */
export function findSession(db: Db, id: string) {
  return db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('merchants as m', 'm.id', 's.merchant_id')
    .select([
      's.id as session_id',
      's.state',
      's.created_at as session_created_at',
      's.last_seen_at',
      's.expires_at',
      ...USER_COLUMNS,
      'm.name as merchant_name',
      'm.livemode',
      'm.status as merchant_status',
      'm.credential_version',
    ])
    .where('s.id', '=', id)
    .where('s.revoked_at', 'is', null)
    .executeTakeFirst();
}

export type SessionRow = NonNullable<Awaited<ReturnType<typeof findSession>>>;

/** Until when the session lives: its absolute end, or its idle end if sooner; null when it has ended (or its user or merchant has). */
export function sessionEnd(row: SessionRow, nowMs: number, idleMs: number): { absoluteMs: number; idleMs: number } | null {
  const absolute = row.expires_at.getTime();
  const idle = row.last_seen_at.getTime() + idleMs;
  if (nowMs >= absolute || nowMs >= idle || row.status !== 'active' || row.merchant_status !== 'active') return null;
  return { absoluteMs: absolute, idleMs: idle };
}

/** The session's state as the routes see it: an active session of a role that must enrol TOTP (promoted since) enrols first. */
export function effectiveState(row: SessionRow): SessionState {
  if (row.state === 'active' && ROLES[row.role].totpRequired && row.totp_enabled_at === null) return 'enrolment_required';
  return row.state;
}

/**
 * Gives the session a new id (fixation: the value a browser held before is never promoted) and a
 * state; when `expiresAt` is given its lifetime starts again. Conditional on the old id being
 * live: false when it was revoked meanwhile. Its tokens follow (ON UPDATE CASCADE).
 */
export async function rotateSession(
  db: Db,
  change: { from: string; to: string; state: SessionState; now: Date; expiresAt?: Date },
): Promise<boolean> {
  const result = await db
    .updateTable('dashboard_sessions')
    .set({
      id: change.to,
      state: change.state,
      last_seen_at: change.now,
      ...(change.expiresAt ? { expires_at: change.expiresAt, created_at: change.now } : {}),
    })
    .where('id', '=', change.from)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function revokeSession(db: Db, id: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('dashboard_sessions')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
