import { sql } from 'kysely';
import type { Db } from '../db/db.ts';
import type { UserRole } from './roles.ts';

/** A user's columns as the user rows read them (store.ts, and sessions.ts with its session). */
export const USER_COLUMNS = [
  'u.id',
  'u.merchant_id',
  'u.email',
  'u.role',
  'u.status',
  'u.password_hash',
  'u.totp_secret_encrypted',
  'u.totp_pending_secret_encrypted',
  'u.totp_enabled_at',
  'u.created_at',
] as const;

export type UserRow = NonNullable<Awaited<ReturnType<typeof findUser>>>;

export async function insertUser(db: Db, user: { id: string; merchantId: string; email: string; role: UserRole; now: Date }) {
  await db
    .insertInto('users')
    .values({ id: user.id, merchant_id: user.merchantId, email: user.email, role: user.role, created_at: user.now, updated_at: user.now })
    .execute();
}

/** A merchant's user that is not removed. */
export function findUser(db: Db, merchantId: string, id: string) {
  return db
    .selectFrom('users as u')
    .select(USER_COLUMNS)
    .where('u.id', '=', id)
    .where('u.merchant_id', '=', merchantId)
    .where('u.status', '<>', 'removed')
    .executeTakeFirst();
}

/** The user an email signs in as (at most one that is not removed: users_email), with its merchant. */
export function findUserByEmail(db: Db, email: string) {
  return db
    .selectFrom('users as u')
    .innerJoin('merchants as m', 'm.id', 'u.merchant_id')
    .select([...USER_COLUMNS, 'm.status as merchant_status'])
    .where(sql<string>`lower(u.email)`, '=', email.toLowerCase())
    .where('u.status', '<>', 'removed')
    .executeTakeFirst();
}

export function listUsers(db: Db, merchantId: string) {
  return db
    .selectFrom('users as u')
    .select(USER_COLUMNS)
    .where('u.merchant_id', '=', merchantId)
    .where('u.status', '<>', 'removed')
    .orderBy('u.id')
    .execute();
}

export async function insertInvitation(db: Db, row: { tokenHash: string; userId: string; now: Date; expiresAt: Date }) {
  await db
    .insertInto('invitations')
    .values({ token_hash: row.tokenHash, user_id: row.userId, created_at: row.now, expires_at: row.expiresAt })
    .execute();
}

/** The invited user of an unused, unexpired invitation (read only: accepting it is useInvitation). */
export function findInvitation(db: Db, tokenHash: string, now: Date) {
  return db
    .selectFrom('invitations as i')
    .innerJoin('users as u', 'u.id', 'i.user_id')
    .select(['u.id', 'u.merchant_id', 'u.email'])
    .where('i.token_hash', '=', tokenHash)
    .where('i.used_at', 'is', null)
    .where('i.expires_at', '>', now)
    .where('u.status', '=', 'invited')
    .executeTakeFirst();
}

/** Uses the invitation once and activates its user with the password: one conditional update each. */
export async function useInvitation(db: Db, tokenHash: string, passwordHash: string, now: Date) {
  const used = await db
    .updateTable('invitations')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  if (!used) return undefined;
  return db
    .updateTable('users')
    .set({ status: 'active', password_hash: passwordHash, updated_at: now })
    .where('id', '=', used.user_id)
    .where('status', '=', 'invited')
    .returning(['id', 'merchant_id', 'email'])
    .executeTakeFirst();
}

export async function setPassword(db: Db, userId: string, passwordHash: string, now: Date): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('id', '=', userId).execute();
}

/** Keeps a new pending TOTP secret, unless TOTP is already enabled. */
export async function setPendingTotp(db: Db, userId: string, sealed: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ totp_pending_secret_encrypted: sealed, updated_at: now })
    .where('id', '=', userId)
    .where('totp_enabled_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The pending secret `sealed` becomes the user's, with `step` as its last used step; once. */
export async function enableTotp(db: Db, userId: string, sealed: string, step: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({
      totp_secret_encrypted: sealed,
      totp_pending_secret_encrypted: null,
      totp_enabled_at: now,
      totp_last_step: String(step),
      updated_at: now,
    })
    .where('id', '=', userId)
    .where('totp_enabled_at', 'is', null)
    .where('totp_pending_secret_encrypted', '=', sealed)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Accepts a TOTP time step only if it is later than every one used before: the database decides a replay. */
export async function useTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ totp_last_step: String(step) })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', String(step))]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The user's recovery codes, replaced by these (keyed hashes). */
export async function replaceRecoveryCodes(db: Db, userId: string, hashes: readonly string[], now: Date): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('recovery_codes')
    .values(hashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: now })))
    .execute();
}

/** Uses a recovery code once (conditional update). */
export async function useRecoveryCode(db: Db, userId: string, hash: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', hash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Locks the merchant's owners (in id order, so two transactions never wait on each other in a
 * cycle) and the target user; the conditional update that follows then sees every change an
 * earlier transaction made to them.
 */
async function lockForOwnerRule(trx: Db, merchantId: string, id: string) {
  await trx
    .selectFrom('users')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('role', '=', 'owner')
    .where('status', '<>', 'removed')
    .orderBy('id')
    .forUpdate()
    .execute();
  return trx
    .selectFrom('users')
    .select(['role', 'status'])
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .where('status', '<>', 'removed')
    .forUpdate()
    .executeTakeFirst();
}

/** Whether the user `id` is not an owner, or another active owner of the merchant remains. */
const ownerRuleHolds = (merchantId: string, id: string) =>
  sql<boolean>`(role <> 'owner' OR EXISTS (SELECT 1 FROM users o WHERE o.merchant_id = ${merchantId} AND o.id <> ${id}
    AND o.role = 'owner' AND o.status = 'active'))`;

export type OwnerRuleOutcome = { ok: true; from: UserRole } | { ok: false; error: 'not_found' | 'last_owner' };

/**
 * Changes a user's role; demoting the merchant's last active owner is refused by the update's own
 * condition, inside one transaction holding the owners' row locks (never check-then-act).
 */
export async function changeRole(trx: Db, merchantId: string, id: string, role: UserRole, now: Date): Promise<OwnerRuleOutcome> {
  const target = await lockForOwnerRule(trx, merchantId, id);
  if (!target) return { ok: false, error: 'not_found' };
  const updated = await trx
    .updateTable('users')
    .set({ role, updated_at: now })
    .where('id', '=', id)
    .where('status', '<>', 'removed')
    .where(role === 'owner' ? sql<boolean>`true` : ownerRuleHolds(merchantId, id))
    .executeTakeFirst();
  return updated.numUpdatedRows > 0n ? { ok: true, from: target.role } : { ok: false, error: 'last_owner' };
}

/** Removes a user (the last active owner is refused as in changeRole) and ends its sessions. */
export async function removeUser(trx: Db, merchantId: string, id: string, now: Date): Promise<OwnerRuleOutcome> {
  const target = await lockForOwnerRule(trx, merchantId, id);
  if (!target) return { ok: false, error: 'not_found' };
  const removed = await trx
    .updateTable('users')
    .set({ status: 'removed', removed_at: now, updated_at: now, totp_pending_secret_encrypted: null })
    .where('id', '=', id)
    .where('status', '<>', 'removed')
    .where(ownerRuleHolds(merchantId, id))
    .executeTakeFirst();
  if (removed.numUpdatedRows === 0n) return { ok: false, error: 'last_owner' };
  await revokeUserSessions(trx, id, now);
  return { ok: true, from: target.role };
}

/**
 * The writes that keep the last-owner rule: production's are the two above. deps.ts can wire
 * others (BuildDepsOptions.ownerRule): only the tests' broken-on-purpose variant, which proves
 * the race test can fail; Config has no switch for it.
 */
export interface OwnerRule {
  changeRole: typeof changeRole;
  removeUser: typeof removeUser;
}

export const ownerRule: OwnerRule = { changeRole, removeUser };

/** Ends every session of the user (but `exceptId`); their tokens stop with them. */
export async function revokeUserSessions(db: Db, userId: string, now: Date, exceptId?: string): Promise<void> {
  let q = db.updateTable('dashboard_sessions').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null);
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  await q.execute();
}
