// Sessions over time (manual clock): idle and absolute ends, TOTP and recovery codes used once,
// and what ends a session or changes its rights (password change, sign-out, removal, role change)
// reaching its session-bound token within 5 s; the last-owner rule under a race.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildTestApp, createTestMerchant, manualClock, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { runLastOwnerRace } from './last-owner-race.ts';
import { activeUser, type Browser, bearer, call, PASSWORD, sessionCookie, sessionToken, signIn, totpCode } from './support.ts';

const IDLE_S = 600;
const ABSOLUTE_S = 3_600;

describe('dashboard sessions', () => {
  let app: TestApp;
  let m: TestMerchant;
  const clock = manualClock();
  before(async () => {
    app = await buildTestApp(null, {
      clock,
      env: { PURSE_SESSION_IDLE_S: String(IDLE_S), PURSE_SESSION_ABSOLUTE_S: String(ABSOLUTE_S) },
    });
    m = await createTestMerchant(app, 'Sessions');
  });
  after(async () => {
    await app.close();
    await app.deps.close();
  });

  const session = (b: Pick<Browser, 'cookie' | 'csrf'>) => call(app, b, 'GET', '/dashboard/api/session');
  const v1 = (token: string) => app.inject({ method: 'GET', url: '/v1/payments', headers: bearer(token) });
  /** Past the token cache (2 s) and within the 5 s bound. */
  const pastCache = () => clock.advance(2_500);

  async function secondFactor(b: Browser, input: Record<string, string>) {
    const res = await signIn(app, b.email, PASSWORD);
    assert.equal(res.json().state, 'second_factor_required');
    const pending = { cookie: sessionCookie(res) ?? '', csrf: res.json().csrf_token };
    return { pending, res: await call(app, pending, 'POST', '/dashboard/api/sign-in/second-factor', input) };
  }

  test('idle end: activity keeps a session; PURSE_SESSION_IDLE_S without a request ends it and its token', async () => {
    const b = await activeUser(app, m.merchantId, 'viewer');
    const token = await sessionToken(app, b);
    for (let i = 0; i < 3; i++) {
      clock.advance((IDLE_S - 60) * 1000);
      assert.equal((await session(b)).statusCode, 200, `request ${i}`);
    }
    const view = (await session(b)).json();
    assert.equal(view.state, 'active');
    assert.equal(Date.parse(view.idle_expires_at) - clock.now().getTime() <= IDLE_S * 1000, true);
    clock.advance(IDLE_S * 1000 + 1);
    const ended = await session(b);
    assert.equal(ended.statusCode, 401);
    assert.equal(ended.json().error.code, 'session_invalid');
    assert.equal((await v1(token)).statusCode, 401);
  });

  test('a session token counts as activity; the absolute end stops everything whatever the activity', async () => {
    const b = await activeUser(app, m.merchantId, 'viewer');
    let token = await sessionToken(app, b);
    const started = clock.now().getTime();
    while (clock.now().getTime() - started < (ABSOLUTE_S - 300) * 1000) {
      clock.advance(240_000);
      if ((await v1(token)).statusCode === 401) token = await sessionToken(app, b);
      assert.equal((await v1(token)).statusCode, 200, 'token use keeps the session alive past its idle end');
    }
    const last = await call(app, b, 'POST', '/dashboard/api/session/token');
    assert.ok(last.json().expires_in <= 300, 'a token never outlives its session');
    clock.advance(301_000);
    assert.equal((await session(b)).statusCode, 401);
    assert.equal((await v1(last.json().access_token)).statusCode, 401);
  });

  test('a session waiting for its second factor lives 600 s and can do nothing else', async () => {
    const owner = await activeUser(app, m.merchantId, 'owner');
    const res = await signIn(app, owner.email, PASSWORD);
    const pending = { cookie: sessionCookie(res) ?? '', csrf: res.json().csrf_token };
    const token = await call(app, pending, 'POST', '/dashboard/api/session/token');
    assert.equal(token.statusCode, 403);
    assert.equal(token.json().error.code, 'session_incomplete');
    assert.equal((await call(app, pending, 'GET', '/dashboard/api/users')).statusCode, 403);
    clock.advance(600_001);
    assert.equal((await session(pending)).statusCode, 401);
  });

  test('TOTP: a wrong code fails, a used step is refused (replay), the next step works; a recovery code works once', async () => {
    const owner = await activeUser(app, m.merchantId, 'owner');
    const secret = owner.totpSecret ?? '';
    clock.advance(30_000);
    const wrong = await secondFactor(owner, { code: totpCode(app, secret) === '000000' ? '111111' : '000000' });
    assert.equal(wrong.res.statusCode, 401);
    assert.equal(wrong.res.json().error.code, 'second_factor_invalid');
    const code = totpCode(app, secret);
    assert.equal((await secondFactor(owner, { code })).res.statusCode, 200);
    const replay = await secondFactor(owner, { code });
    assert.equal(replay.res.statusCode, 401, 'the same code within its window');
    assert.equal((await secondFactor(owner, { code: totpCode(app, secret, -1) })).res.statusCode, 401, 'an older step');
    const next = await secondFactor(owner, { code: totpCode(app, secret, 1) });
    assert.equal(next.res.statusCode, 200, next.res.body);
    const recovery = owner.recoveryCodes?.[0] ?? '';
    assert.match(recovery, /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    assert.equal(owner.recoveryCodes?.length, 10);
    assert.equal((await secondFactor(owner, { recovery_code: recovery.toUpperCase() })).res.statusCode, 200);
    assert.equal((await secondFactor(owner, { recovery_code: recovery })).res.statusCode, 401, 'used once');
    const records = await sql<{ action: string; n: number }>`
      SELECT action, count(*)::int AS n FROM audit_events WHERE actor_id = ${owner.userId} AND actor_type = 'user' GROUP BY action ORDER BY action`.execute(
      app.deps.db.db,
    );
    assert.deepEqual(records.rows, [
      { action: 'user.invitation_accepted', n: 1 },
      { action: 'user.recovery_code_used', n: 1 },
      { action: 'user.second_factor_failed', n: 4 },
      { action: 'user.signed_in', n: 4 },
      { action: 'user.totp_enabled', n: 1 },
    ]);
    const enrolAgain = await call(app, owner, 'POST', '/dashboard/api/totp/enrol');
    assert.equal(enrolAgain.json().error.code, 'totp_already_enabled');
  });

  test('a password change gives this session a new id and ends every other session and its token', async () => {
    const b = await activeUser(app, m.merchantId, 'support');
    const other = await signIn(app, b.email, PASSWORD);
    const otherBrowser = { cookie: sessionCookie(other) ?? '', csrf: other.json().csrf_token };
    const otherToken = await sessionToken(app, { ...b, ...otherBrowser });
    assert.equal((await v1(otherToken)).statusCode, 200);
    const changed = await call(app, b, 'POST', '/dashboard/api/password', {
      current_password: PASSWORD,
      new_password: 'a brand new passphrase',
    });
    assert.equal(changed.statusCode, 200, changed.body);
    const fresh = { cookie: sessionCookie(changed) ?? '', csrf: changed.json().csrf_token };
    assert.notEqual(fresh.cookie, b.cookie);
    assert.equal((await session(b)).statusCode, 401, 'the old id');
    assert.equal((await session(fresh)).statusCode, 200);
    assert.equal((await session(otherBrowser)).statusCode, 401, 'the other session');
    pastCache();
    assert.equal((await v1(otherToken)).statusCode, 401, 'the other session’s token');
    assert.equal((await signIn(app, b.email, PASSWORD)).statusCode, 401);
    assert.equal((await signIn(app, b.email, 'a brand new passphrase')).statusCode, 200);
    const wrong = await call(app, fresh, 'POST', '/dashboard/api/password', {
      current_password: 'not it at all',
      new_password: 'whatever it is now',
    });
    assert.equal(wrong.statusCode, 400);
  });

  test('sign-out, removal and a role change reach a session token within 5 s', async () => {
    const owner = await activeUser(app, m.merchantId, 'owner');
    const a = await activeUser(app, m.merchantId, 'support');
    const tokenA = await sessionToken(app, a);
    assert.equal((await call(app, a, 'POST', '/dashboard/api/sign-out')).statusCode, 204);
    pastCache();
    assert.equal((await v1(tokenA)).statusCode, 401, 'signed out');

    const b = await activeUser(app, m.merchantId, 'support');
    const tokenB = await sessionToken(app, b);
    const refund = () => app.inject({ method: 'POST', url: '/v1/refunds', headers: bearer(tokenB), payload: {} });
    assert.equal((await refund()).statusCode, 400, 'support may refund');
    const demoted = await call(app, owner, 'PATCH', `/dashboard/api/users/${b.userId}`, { role: 'viewer' });
    assert.equal(demoted.statusCode, 200, demoted.body);
    assert.equal(demoted.json().role, 'viewer');
    pastCache();
    assert.equal((await refund()).statusCode, 403, 'a viewer may not');
    assert.equal((await v1(tokenB)).statusCode, 200);
    assert.equal((await call(app, owner, 'DELETE', `/dashboard/api/users/${b.userId}`)).statusCode, 204);
    pastCache();
    assert.equal((await v1(tokenB)).statusCode, 401, 'removed');
    assert.equal((await session(b)).statusCode, 401);
    const changes = await sql<{ action: string; changes: unknown; actor_id: string }>`
      SELECT action, changes, actor_id FROM audit_events WHERE target_id = ${b.userId} AND action IN ('user.role_changed', 'user.removed') ORDER BY seq`.execute(
      app.deps.db.db,
    );
    assert.deepEqual(changes.rows, [
      { action: 'user.role_changed', changes: { role: { from: 'support', to: 'viewer' } }, actor_id: owner.userId },
      { action: 'user.removed', changes: null, actor_id: owner.userId },
    ]);
    const other = await createTestMerchant(app, 'Elsewhere');
    const stranger = await activeUser(app, other.merchantId, 'viewer');
    const foreign = await call(app, owner, 'PATCH', `/dashboard/api/users/${stranger.userId}`, { role: 'owner' });
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.json().error.code, 'resource_not_found');
  });

  test('the last owner: two owners demoting (or removing) each other at once, exactly one succeeds; the last cannot leave', async () => {
    // Four merchants at once (test/users/last-owner-race.ts; its negative control breaks the rule).
    for (const round of await runLastOwnerRace(app, 4)) {
      const why = `${round.act}: ${round.bodies.join(' ')}`;
      const [won, lost] = [...round.statuses].sort((a, b) => a - b);
      // The winner: 200 (a demotion) or 204 (the removal). The loser: 409 last_owner, or 403 / 401
      // when the winner's change reached the loser's own session first.
      assert.ok([200, 204].includes(won ?? 0) && [401, 403, 409].includes(lost ?? 0), why);
      assert.equal(round.activeOwners, 1, why);
      const last = round.statuses[0] === 200 ? round.x : round.y;
      const self = await call(app, last, 'DELETE', `/dashboard/api/users/${last.userId}`);
      assert.equal(self.statusCode, 409);
      assert.equal(self.json().error.code, 'last_owner');
      assert.equal(
        (await call(app, last, 'PATCH', `/dashboard/api/users/${last.userId}`, { role: 'viewer' })).json().error.code,
        'last_owner',
      );
    }
  });
});
