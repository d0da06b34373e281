import type { Db } from '../db/db.ts';

/**
 * An ended session or a spent invitation is kept a day (docs/users.md): long enough for a support
 * look-up of what just ended. Nothing else needs them then: the audit log names users, whose rows
 * are never deleted, and no session or invitation.
 */
export const KEEP_ENDED_MS = 86_400_000;

/**
 * One batch (at most `batch`) of sessions that ended over a day ago, deleted: signed out or
 * revoked (revoked_at), past their absolute end (expires_at) or idle for `idleMs` since their last
 * activity (as sessions.ts sessionEnd judges them, with today's PURSE_SESSION_IDLE_S). A session
 * still named by an access token waits for the token purge, which keeps a token a day past its
 * own expiry: the ON DELETE CASCADE of access_tokens.session_id never takes a token early.
 */
export async function purgeEndedSessions(db: Db, now: Date, idleMs: number, batch: number): Promise<number> {
  const before = new Date(now.getTime() - KEEP_ENDED_MS);
  const idleBefore = new Date(before.getTime() - idleMs);
  const ended = db
    .selectFrom('dashboard_sessions as s')
    .select('s.id')
    .where((eb) => eb.or([eb('s.revoked_at', '<', before), eb('s.expires_at', '<', before), eb('s.last_seen_at', '<', idleBefore)]))
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('access_tokens as t').select('t.token_hash').whereRef('t.session_id', '=', 's.id'))),
    )
    .limit(batch);
  const result = await db.deleteFrom('dashboard_sessions').where('id', 'in', ended).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * One batch of invitations used or expired over a day ago, deleted. Their link then answers
 * 400 invitation_invalid as it did (unknown, used and expired look alike); the invited user's row
 * stays (an owner removes it, or it is invited again once removed).
 */
export async function purgeSpentInvitations(db: Db, now: Date, batch: number): Promise<number> {
  const before = new Date(now.getTime() - KEEP_ENDED_MS);
  const spent = db
    .selectFrom('invitations')
    .select('token_hash')
    .where((eb) => eb.or([eb('used_at', '<', before), eb('expires_at', '<', before)]))
    .limit(batch);
  const result = await db.deleteFrom('invitations').where('token_hash', 'in', spent).executeTakeFirst();
  return Number(result.numDeletedRows);
}
