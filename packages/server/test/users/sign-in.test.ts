// Sign-in, the cookie and CSRF, fixation, throttling without lock-out, invitations, and the audit
// records of each act. One app for the file (behind a trusted proxy, so X-Forwarded-Proto
// counts), on a manual clock: the throttle's windows are fixed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildTestApp, createTestMerchant, manualClock, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { accept, activeUser, call, invite, PASSWORD, sessionCookie, signIn, uniqueEmail } from './support.ts';

describe('dashboard sign-in', () => {
  let app: TestApp;
  let m: TestMerchant;
  const clock = manualClock();
  before(async () => {
    app = await buildTestApp(null, { clock, env: { PURSE_TRUSTED_PROXIES: '127.0.0.1' } });
    m = await createTestMerchant(app, 'Sign-in');
  });
  after(async () => {
    await app.close();
    await app.deps.close();
  });

  const auditOf = async (action: string, targetId: string) =>
    (
      await sql<{ actor_type: string; actor_id: string | null; actor_email: string | null }>`
        SELECT actor_type, actor_id, actor_email FROM audit_events WHERE action = ${action} AND target_id = ${targetId}`.execute(
        app.deps.db.db,
      )
    ).rows;

  test('cookie flags: HttpOnly, SameSite=Strict, Path=/dashboard; Secure only over HTTPS from a trusted proxy', async () => {
    const b = await activeUser(app, m.merchantId, 'viewer');
    const plain = await signIn(app, b.email, PASSWORD);
    const cookie = String(plain.headers['set-cookie']);
    assert.match(cookie, /^purse_session=[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Strict$/);
    assert.equal(plain.headers['cache-control'], 'no-store');
    const https = await app.inject({
      method: 'POST',
      url: '/dashboard/api/sign-in',
      payload: { email: b.email, password: PASSWORD },
      headers: { 'x-forwarded-proto': 'https' },
    });
    assert.match(String(https.headers['set-cookie']), /; Secure$/);
    // Not from a trusted proxy: the header is ignored.
    const spoofed = await app.inject({
      method: 'POST',
      url: '/dashboard/api/sign-in',
      payload: { email: b.email, password: PASSWORD },
      headers: { 'x-forwarded-proto': 'https' },
      remoteAddress: '127.0.0.9',
    });
    assert.doesNotMatch(String(spoofed.headers['set-cookie']), /Secure/);
    const body = plain.json();
    assert.deepEqual(Object.keys(body).sort(), ['csrf_token', 'state', 'user']);
    assert.equal(body.user.email, b.email);
    assert.match(body.user.id, /^usr_/);
  });

  test('fixation: a cookie held before sign-in is not the one after, and the old one is refused', async () => {
    const owner = await activeUser(app, m.merchantId, 'owner');
    const first = await signIn(app, owner.email, PASSWORD);
    assert.equal(first.json().state, 'second_factor_required');
    const before = { cookie: sessionCookie(first) ?? '', csrf: first.json().csrf_token };
    const { totpCode } = await import('./support.ts');
    const done = await call(app, before, 'POST', '/dashboard/api/sign-in/second-factor', {
      code: totpCode(app, owner.totpSecret ?? '', 1),
    });
    assert.equal(done.statusCode, 200, done.body);
    const after = sessionCookie(done);
    assert.ok(after && after !== before.cookie);
    assert.notEqual(done.json().csrf_token, before.csrf);
    const old = await call(app, before, 'GET', '/dashboard/api/session');
    assert.equal(old.statusCode, 401);
    assert.equal(old.json().error.code, 'session_invalid');
    assert.match(String(old.headers['set-cookie']), /^purse_session=; Path=\/dashboard; HttpOnly; SameSite=Strict; Max-Age=0/);
    // A cookie value a browser was given by someone else before signing in is never promoted: sign-in ignores it.
    const planted = 'A'.repeat(43);
    const res = await app.inject({
      method: 'POST',
      url: '/dashboard/api/sign-in',
      payload: { email: owner.email, password: PASSWORD },
      headers: { cookie: `purse_session=${planted}` },
    });
    assert.notEqual(sessionCookie(res), planted);
  });

  test('CSRF: missing, wrong or another session’s token → 403 csrf_token_invalid, and nothing changes', async () => {
    const a = await activeUser(app, m.merchantId, 'viewer');
    const b = await activeUser(app, m.merchantId, 'viewer');
    const count = async () =>
      Number(
        (await sql<{ n: string }>`SELECT count(*) AS n FROM access_tokens WHERE session_id IS NOT NULL`.execute(app.deps.db.db)).rows[0]?.n,
      );
    const before = await count();
    for (const csrf of [undefined, 'wrong', b.csrf]) {
      const headers: Record<string, string> = { cookie: `purse_session=${a.cookie}` };
      if (csrf !== undefined) headers['x-csrf-token'] = csrf;
      for (const url of ['/dashboard/api/session/token', '/dashboard/api/sign-out']) {
        const res = await app.inject({ method: 'POST', url, headers });
        assert.equal(res.statusCode, 403, `${url} ${csrf}: ${res.body}`);
        assert.equal(res.json().error.code, 'csrf_token_invalid');
      }
      const pw = await app.inject({
        method: 'POST',
        url: '/dashboard/api/password',
        headers,
        payload: { current_password: PASSWORD, new_password: 'another long password' },
      });
      assert.equal(pw.statusCode, 403);
    }
    assert.equal(await count(), before, 'no token minted');
    assert.equal((await call(app, a, 'GET', '/dashboard/api/session')).statusCode, 200, 'still signed in');
    assert.equal((await signIn(app, a.email, PASSWORD)).statusCode, 200, 'password unchanged');
    // The routes without a session refuse cross-site requests.
    const cross = await app.inject({
      method: 'POST',
      url: '/dashboard/api/sign-in',
      payload: { email: a.email, password: PASSWORD },
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(cross.statusCode, 403);
    assert.equal(cross.json().error.code, 'csrf_token_invalid');
    const site = await app.inject({
      method: 'POST',
      url: '/dashboard/api/invitations/accept',
      payload: { token: `inv_${'a'.repeat(43)}`, password: PASSWORD },
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    assert.equal(site.statusCode, 403);
    const form = await app.inject({
      method: 'POST',
      url: '/dashboard/api/sign-in',
      payload: `email=${encodeURIComponent(a.email)}&password=x`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.statusCode, 415);
  });

  test('wrong password, unknown email, invited or removed user: one 401 sign_in_failed; failures recorded for known emails only', async () => {
    const known = await activeUser(app, m.merchantId, 'support');
    const { token: _t, userId: invitedId } = await invite(app, m.merchantId, uniqueEmail('pending'), 'viewer');
    const invitedEmail = (await app.deps.services.users.team.list(m.merchantId)).data.find((u) => u.id === invitedId)?.email ?? '';
    const answers = [
      await signIn(app, known.email, 'not the password at all', '127.0.0.3'),
      await signIn(app, uniqueEmail('nobody'), PASSWORD, '127.0.0.3'),
      await signIn(app, invitedEmail, PASSWORD, '127.0.0.3'),
    ];
    for (const res of answers) {
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().error.code, 'sign_in_failed');
      assert.equal(res.json().error.message, answers[0]?.json().error.message);
    }
    const records = await auditOf('user.sign_in_failed', known.userId);
    assert.equal(records.length, 1);
    assert.equal(records[0]?.actor_type, 'user');
  });

  test('lock-out resistance: a stranger failing from 127.0.0.2 gets 429; the owner at 127.0.0.1 still signs in', async () => {
    const owner = await activeUser(app, m.merchantId, 'viewer');
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await signIn(app, owner.email, `guess number ${i} wrong`, '127.0.0.2')).statusCode);
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429, 429]);
    const limited = await signIn(app, owner.email, PASSWORD, '127.0.0.2');
    assert.equal(limited.statusCode, 429, 'even the right password, from the stranger’s address');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal(limited.json().error.code, 'rate_limited');
    const mine = await signIn(app, owner.email, PASSWORD, '127.0.0.1');
    assert.equal(mine.statusCode, 200, mine.body);
    clock.advance(15 * 60_000);
    assert.equal((await signIn(app, owner.email, PASSWORD, '127.0.0.2')).statusCode, 200, 'the window passed');
  });

  test('an invitation works once; an expired one is refused; each act leaves one audit record with a user actor', async () => {
    const email = uniqueEmail('invitee');
    const { token, userId } = await invite(app, m.merchantId, email, 'developer');
    const first = await accept(app, token);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { email });
    const again = await accept(app, token, 'a different password');
    assert.equal(again.statusCode, 400);
    assert.equal(again.json().error.code, 'invitation_invalid');
    assert.equal((await signIn(app, email, 'a different password')).statusCode, 401, 'the second use set nothing');
    const late = await invite(app, m.merchantId, uniqueEmail('late'), 'viewer');
    clock.advance(72 * 3_600_000 + 1);
    assert.equal((await accept(app, late.token)).json().error.code, 'invitation_invalid');
    const signedIn = await signIn(app, email, PASSWORD);
    const b = { cookie: sessionCookie(signedIn) ?? '', csrf: signedIn.json().csrf_token };
    assert.equal((await call(app, b, 'POST', '/dashboard/api/sign-out')).statusCode, 204);
    for (const action of ['user.invited', 'user.invitation_accepted', 'user.signed_in', 'user.signed_out']) {
      const records = await auditOf(action, userId);
      assert.equal(records.length, 1, action);
      if (action !== 'user.invited') assert.deepEqual(records[0], { actor_type: 'user', actor_id: userId, actor_email: email }, action);
      else assert.equal(records[0]?.actor_type, 'operator');
    }
  });

  test('an email belongs to one user across merchants: 409 user_exists', async () => {
    const email = uniqueEmail('taken');
    await invite(app, m.merchantId, email, 'viewer');
    const other = await createTestMerchant(app, 'Other');
    await assert.rejects(invite(app, other.merchantId, email.toUpperCase(), 'owner'), { code: 'user_exists' });
    const owner = await activeUser(app, m.merchantId, 'owner');
    const res = await call(app, owner, 'POST', '/dashboard/api/users', { email, role: 'viewer' });
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().error.code, 'user_exists');
    const created = await call(app, owner, 'POST', '/dashboard/api/users', { email: uniqueEmail('new'), role: 'viewer' });
    assert.equal(created.statusCode, 201, created.body);
    assert.match(created.json().invitation_url, /^http:\/\/localhost:80\/dashboard\/invitation#inv_[A-Za-z0-9_-]{43}$/);
    const records = await auditOf('user.invited', created.json().user.id);
    assert.deepEqual(records, [{ actor_type: 'user', actor_id: owner.userId, actor_email: owner.email }]);
  });
});
