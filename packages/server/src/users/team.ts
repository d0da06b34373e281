import { operatorEntry, userEntry } from '../audit/entry.ts';
import { appendAudit } from '../audit/store.ts';
import type { AuditEntry } from '../audit/types.ts';
import { inTransaction } from '../db/db.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { ApiError, notFound } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { keyedHash, newSecret } from '../shared/secrets.ts';
import { type Caller, type Session, type UsersContext, userView } from './context.ts';
import type { UserRole } from './roles.ts';
import * as store from './store.ts';

/** An invitation link works once, for 72 hours. */
export const INVITATION_TTL_MS = 72 * 3_600_000;

const userExists = () =>
  new ApiError('user_exists', 'A user with this email already exists; an email belongs to one user (remove the other first).');
const lastOwner = () => new ApiError('last_owner', 'This is the merchant’s last active owner: make another user owner first.');

/** Who invites: a signed-in owner, or the operator (`purse user invite`). */
export type Inviter = { session: Session; caller: Caller } | { operator: true };

/** A new invited user and its one-time link `<base>/dashboard/invitation#<token>` (the token never reaches a server log). */
async function invite(ctx: UsersContext, merchantId: string, input: { email: string; role: UserRole }, baseUrl: string, by: Inviter) {
  const { db, clock } = ctx;
  const id = newId('user');
  const token = newSecret('inv');
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
  const changes = { email: input.email, role: input.role };
  const target = { type: 'user', id };
  const entry: AuditEntry =
    'operator' in by
      ? operatorEntry(merchantId, 'user.invited', changes, target)
      : userEntry(by.session.row, 'user.invited', { target, origin: by.caller.origin, changes });
  try {
    await inTransaction(db, async (trx) => {
      await store.insertUser(trx, { id, merchantId, email: input.email, role: input.role, now });
      await store.insertInvitation(trx, { tokenHash: keyedHash(ctx.hashKey, token), userId: id, now, expiresAt });
      await appendAudit(trx, [entry], now);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw userExists();
    throw error;
  }
  const user = await store.findUser(db, merchantId, id);
  if (!user) throw notFound();
  return {
    user: userView(user),
    invitation_url: `${baseUrl.replace(/\/+$/, '')}/dashboard/invitation#${token}`,
    invitation_expires_at: expiresAt.toISOString(),
  };
}

/** The merchant's users as an owner manages them, and invitations (the owner's and the operator's). */
export function createTeam(ctx: UsersContext) {
  const { db, clock } = ctx;

  async function list(merchantId: string) {
    const rows = await store.listUsers(db, merchantId);
    return { object: 'list' as const, data: rows.map(userView), has_more: false };
  }

  async function changeRole(session: Session, id: string, role: UserRole, caller: Caller) {
    const merchantId = session.row.merchant_id;
    const now = clock.now();
    await inTransaction(db, async (trx) => {
      const outcome = await ctx.ownerRule.changeRole(trx, merchantId, id, role, now);
      if (!outcome.ok) throw outcome.error === 'last_owner' ? lastOwner() : notFound();
      if (outcome.from === role) return;
      const changes = { role: { from: outcome.from, to: role } };
      await appendAudit(
        trx,
        [userEntry(session.row, 'user.role_changed', { target: { type: 'user', id }, origin: caller.origin, changes })],
        now,
      );
    });
    ctx.changed();
    const user = await store.findUser(db, merchantId, id);
    if (!user) throw notFound();
    return userView(user);
  }

  async function remove(session: Session, id: string, caller: Caller): Promise<void> {
    const merchantId = session.row.merchant_id;
    const now = clock.now();
    await inTransaction(db, async (trx) => {
      const outcome = await ctx.ownerRule.removeUser(trx, merchantId, id, now);
      if (!outcome.ok) throw outcome.error === 'last_owner' ? lastOwner() : notFound();
      await appendAudit(trx, [userEntry(session.row, 'user.removed', { target: { type: 'user', id }, origin: caller.origin })], now);
    });
    ctx.changed();
  }

  return {
    list,
    invite: (merchantId: string, input: { email: string; role: UserRole }, baseUrl: string, by: Inviter) =>
      invite(ctx, merchantId, input, baseUrl, by),
    changeRole,
    remove,
  };
}
