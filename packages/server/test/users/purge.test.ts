// The purge worker's users steps (src/users/purge.ts): sessions that ended (signed out, past their
// absolute end, idle) and invitations used or expired are deleted a day later, in bounded
// batches; rows within the day, live ones, a session whose token the token purge still keeps, the
// users and the audit log stay.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verifyChain } from '../../src/audit/verify.ts';
import { newId } from '../../src/shared/ids.ts';
import { insertUser } from '../../src/users/store.ts';
import { buildTestApp, createTestMerchant, manualClock, type TestApp } from '../helpers/app.ts';
import { usePrivatePostgres } from '../webhooks/support.ts';
import { activeUser, call, sessionToken } from './support.ts';

// A database of its own on PostgreSQL: the purge runs at a clock days ahead, over every row. (Its
// two tests share it there: each looks at its own users' rows, and the first leaves none behind.)
usePrivatePostgres();

const HOUR = 3_600_000;
const IDLE_S = 3_600;

async function setUp(t: Parameters<typeof buildTestApp>[0]) {
  const clock = manualClock();
  const app = await buildTestApp(t, { clock, env: { PURSE_SESSION_IDLE_S: String(IDLE_S) } });
  const { merchantId } = await createTestMerchant(app, 'Purge');
  const userId = newId('user');
  await insertUser(app.deps.db.db, { id: userId, merchantId, email: `purge-${userId}@shop.example`, role: 'viewer', now: clock.now() });
  const at = (hoursFromNow: number) => new Date(clock.now().getTime() + hoursFromNow * HOUR);
  return { app, clock, merchantId, userId, at };
}

/** The ids of the users' sessions, or the token hashes of their invitations, in order. */
async function idsOf(app: TestApp, table: 'dashboard_sessions' | 'invitations', userIds: string[]): Promise<string[]> {
  const db = app.deps.db.db;
  if (table === 'invitations')
    return (
      await db.selectFrom('invitations').select('token_hash as id').where('user_id', 'in', userIds).orderBy('token_hash').execute()
    ).map((r) => r.id);
  return (await db.selectFrom('dashboard_sessions').select('id').where('user_id', 'in', userIds).orderBy('id').execute()).map((r) => r.id);
}

test('ended sessions and spent invitations go a day later; the others, the users and the audit log stay', async (t) => {
  const { app, clock, merchantId, userId, at } = await setUp(t);
  const db = app.deps.db.db;
  // Hours from now: last activity, absolute end, revoked.
  const sessions: Record<string, { seen: number; expires: number; revoked?: number; token?: number }> = {
    'signed-out-25h': { seen: -26, expires: 5, revoked: -25 },
    'signed-out-23h': { seen: -24, expires: 5, revoked: -23 },
    'absolute-25h': { seen: -24.5, expires: -24.2 },
    'absolute-23h': { seen: -23.9, expires: -23.5 },
    'idle-25h': { seen: -26, expires: 5 },
    'idle-23h': { seen: -24, expires: 5 },
    live: { seen: 0, expires: 5 },
    // Ended 25 h ago, but its token (expired 23 h ago) is still kept by the token purge.
    'token-kept': { seen: -26, expires: 5, revoked: -25, token: -23 },
  };
  for (const [id, s] of Object.entries(sessions)) {
    const row = { id, user_id: userId, merchant_id: merchantId, state: 'active' as const, created_at: at(-30), last_seen_at: at(s.seen) };
    await db
      .insertInto('dashboard_sessions')
      .values({ ...row, expires_at: at(s.expires), revoked_at: s.revoked === undefined ? null : at(s.revoked) })
      .execute();
    if (s.token !== undefined)
      await db
        .insertInto('access_tokens')
        .values({
          token_hash: `purge-${id}`,
          merchant_id: merchantId,
          credential_version: 1,
          session_id: id,
          created_at: at(-30),
          expires_at: at(s.token),
        })
        .execute();
  }
  const invitations: Record<string, { expires: number; used?: number }> = {
    'used-25h': { expires: 40, used: -25 },
    'used-23h': { expires: 40, used: -23 },
    'expired-25h': { expires: -25 },
    'expired-23h': { expires: -23 },
    live: { expires: 40 },
  };
  for (const [token_hash, i] of Object.entries(invitations))
    await db
      .insertInto('invitations')
      .values({
        token_hash,
        user_id: userId,
        created_at: at(-80),
        expires_at: at(i.expires),
        used_at: i.used === undefined ? null : at(i.used),
      })
      .execute();
  const audit = await verifyChain(db, merchantId);

  assert.equal(await app.deps.purgeWorker.runOnce(), 3, 'three sessions (the larger step)');
  assert.deepEqual(await idsOf(app, 'dashboard_sessions', [userId]), ['absolute-23h', 'idle-23h', 'live', 'signed-out-23h', 'token-kept']);
  assert.deepEqual(await idsOf(app, 'invitations', [userId]), ['expired-23h', 'live', 'used-23h']);
  assert.equal(await app.deps.purgeWorker.runOnce(), 0);

  // Two hours on: what was within the day is past it, the kept token is purged and its session follows.
  clock.advance(2 * HOUR);
  assert.equal(await app.deps.purgeWorker.runOnce(), 4);
  assert.deepEqual(await idsOf(app, 'dashboard_sessions', [userId]), ['live']);
  assert.deepEqual(await idsOf(app, 'invitations', [userId]), ['live']);
  const user = await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
  assert.equal(user?.id, userId, 'the user stays');
  assert.deepEqual(await verifyChain(db, merchantId), audit, 'the audit chain is untouched');
  // Once the live ones have ended too (and a day has passed), nothing is left.
  clock.advance(3 * 24 * HOUR);
  assert.equal(await app.deps.purgeWorker.runOnce(), 1);
  assert.deepEqual(await idsOf(app, 'dashboard_sessions', [userId]), []);
  assert.deepEqual(await idsOf(app, 'invitations', [userId]), []);
});

test('a signed-out session and its token, through the real routes: purged a day later, its records kept; in bounded batches', async (t) => {
  const { app, clock, merchantId, userId, at } = await setUp(t);
  const db = app.deps.db.db;
  const viewer = await activeUser(app, merchantId, 'viewer');
  await sessionToken(app, viewer);
  assert.equal((await call(app, viewer, 'POST', '/dashboard/api/sign-out')).statusCode, 204);
  const records = await db.selectFrom('audit_events').select('id').where('actor_id', '=', viewer.userId).execute();
  assert.ok(records.length >= 3, 'accepted, signed in, signed out');
  // 1,500 sessions idle for two days beside it: more than one batch.
  const old = {
    user_id: userId,
    merchant_id: merchantId,
    state: 'active' as const,
    created_at: at(-50),
    last_seen_at: at(-48),
    expires_at: at(1),
  };
  const rows = Array.from({ length: 1_500 }, (_, i) => ({ ...old, id: `purge-batch-${String(i).padStart(4, '0')}` }));
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('dashboard_sessions')
      .values(rows.slice(i, i + 500))
      .execute();
  clock.advance(25 * HOUR);
  assert.equal(await app.deps.purgeWorker.runOnce(), 1_000, 'one bounded batch');
  assert.equal(await app.deps.purgeWorker.runOnce(), 501, 'the rest, and the signed-out session (its token purged first)');
  assert.equal(await app.deps.purgeWorker.runOnce(), 0);
  const users = [userId, viewer.userId];
  assert.deepEqual(await idsOf(app, 'dashboard_sessions', users), []);
  assert.deepEqual(await idsOf(app, 'invitations', users), [], 'the viewer’s, used 25 h ago');
  const tokens = await db
    .selectFrom('access_tokens')
    .select('token_hash')
    .where('merchant_id', '=', merchantId)
    .where('session_id', 'is not', null)
    .execute();
  assert.deepEqual(tokens, [], 'the session token');
  const kept = await db.selectFrom('audit_events').select('id').where('actor_id', '=', viewer.userId).execute();
  assert.deepEqual(kept, records);
  assert.equal((await verifyChain(db, merchantId)).ok, true);
});
