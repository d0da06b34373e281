// The last-owner rule decided by a check-then-act: the merchant's other active owners are counted
// (no row lock), then the role change or removal is written without the update's own condition.
// Two owners acting on each other at once both count one other owner, and both succeed: none is
// left. The pause between the read and the write only widens the window (without it, 10 to 12 of
// the control's 12 merchants lost their owners in three runs; with it, 11 or 12), so that the
// control does not depend on a lucky interleaving; the real rule holds with or without a gap (its test,
// test/users/sessions.test.ts, runs the same race against it).
// Wired only through buildDeps' `ownerRule` option; production code has no way to choose it.
import { sql } from 'kysely';
import type { Db } from '../../src/db/db.ts';
import { type OwnerRule, revokeUserSessions } from '../../src/users/store.ts';

const WINDOW_MS = 25;

async function check(trx: Db, merchantId: string, id: string) {
  const target = await trx
    .selectFrom('users')
    .select(['role', 'status'])
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .where('status', '<>', 'removed')
    .executeTakeFirst();
  const others = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM users
    WHERE merchant_id = ${merchantId} AND id <> ${id} AND role = 'owner' AND status = 'active'`.execute(trx);
  await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
  return { target, otherOwners: Number(others.rows[0]?.n) };
}

export const checkThenActOwnerRule: OwnerRule = {
  async changeRole(trx, merchantId, id, role, now) {
    const { target, otherOwners } = await check(trx, merchantId, id);
    if (!target) return { ok: false, error: 'not_found' };
    if (target.role === 'owner' && role !== 'owner' && otherOwners === 0) return { ok: false, error: 'last_owner' };
    await trx.updateTable('users').set({ role, updated_at: now }).where('id', '=', id).execute();
    return { ok: true, from: target.role };
  },
  async removeUser(trx, merchantId, id, now) {
    const { target, otherOwners } = await check(trx, merchantId, id);
    if (!target) return { ok: false, error: 'not_found' };
    if (target.role === 'owner' && otherOwners === 0) return { ok: false, error: 'last_owner' };
    await trx
      .updateTable('users')
      .set({ status: 'removed', removed_at: now, updated_at: now, totp_pending_secret_encrypted: null })
      .where('id', '=', id)
      .execute();
    await revokeUserSessions(trx, id, now);
    return { ok: true, from: target.role };
  },
};
