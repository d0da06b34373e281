// Every dashboard role against every /v1 route of ROUTE_SCOPES, driven from the table: a session
// token of the role is refused with 403 insufficient_scope exactly where the role's scopes (and,
// for the key routes, its right to manage keys) do not reach; then the users routes per role,
// and the developer's limit on keys.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { grants } from '../../src/api-keys/scopes.ts';
import { ROUTE_SCOPES } from '../../src/route-scopes.ts';
import { newId } from '../../src/shared/ids.ts';
import { ROLES, USER_ROLES } from '../../src/users/roles.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { activeUser, type Browser, bearer, call, sessionToken, uniqueEmail } from './support.ts';

const fill = (url: string) => url.replace(/:[A-Za-z_]+/g, () => newId('payment'));

describe('roles', () => {
  let app: TestApp;
  let m: TestMerchant;
  const browsers = new Map<string, Browser>();
  const tokens = new Map<string, string>();
  before(async () => {
    app = await buildTestApp(null);
    m = await createTestMerchant(app, 'Roles');
    for (const role of USER_ROLES) {
      const browser = await activeUser(app, m.merchantId, role);
      browsers.set(role, browser);
      tokens.set(role, await sessionToken(app, browser));
    }
  });
  after(async () => {
    await app.close();
    await app.deps.close();
  });

  for (const role of USER_ROLES) {
    test(`${role}: every /v1 route answers 403 insufficient_scope exactly outside the role's rights`, async () => {
      const headers = bearer(tokens.get(role) ?? '');
      for (const [key, required] of Object.entries(ROUTE_SCOPES)) {
        const [method, url] = key.split(' ') as [string, string];
        const res = await app.inject({
          method: method as 'GET',
          url: fill(url),
          headers,
          ...(method === 'GET' || method === 'DELETE' ? {} : { payload: {} }),
        });
        if (grants(ROLES[role].scopes, required, ROLES[role].managesKeys)) {
          assert.notEqual(res.statusCode, 403, `${key} as ${role}: ${res.body}`);
          assert.notEqual(res.statusCode, 401, `${key} as ${role}: ${res.body}`);
          continue;
        }
        assert.equal(res.statusCode, 403, `${key} as ${role}: ${res.body}`);
        assert.equal(res.json().error.code, 'insufficient_scope');
      }
    });
  }

  // The contract's words, written out apart from ROLES (which the test above reads): a mistake in
  // that table would otherwise be checked against itself.
  const CONTRACT: Record<string, Record<string, boolean>> = {
    'POST /v1/refunds': { owner: true, admin: true, developer: false, support: true, viewer: false },
    'POST /v1/payouts': { owner: true, admin: true, developer: false, support: false, viewer: false },
    'POST /v1/payments': { owner: true, admin: true, developer: false, support: false, viewer: false },
    'POST /v1/wallets/:id/freeze': { owner: true, admin: true, developer: false, support: false, viewer: false },
    'GET /v1/payments': { owner: true, admin: true, developer: true, support: true, viewer: true },
    'GET /v1/wallets': { owner: true, admin: true, developer: true, support: true, viewer: true },
    'GET /v1/webhook_endpoints': { owner: true, admin: true, developer: true, support: false, viewer: false },
    'GET /v1/api_keys': { owner: true, admin: true, developer: true, support: false, viewer: false },
    'GET /v1/audit_events': { owner: true, admin: true, developer: false, support: false, viewer: false },
  };

  test("the contract's roles, route by route: support refunds but does not pay out, viewer only reads, developer keys and webhooks", async () => {
    for (const [key, allowed] of Object.entries(CONTRACT)) {
      const [method, url] = key.split(' ') as [string, string];
      for (const role of USER_ROLES) {
        const res = await app.inject({
          method: method as 'GET',
          url: fill(url),
          headers: bearer(tokens.get(role) ?? ''),
          ...(method === 'GET' ? {} : { payload: {} }),
        });
        if (allowed[role]) assert.ok(res.statusCode !== 403 && res.statusCode !== 401, `${key} as ${role}: ${res.body}`);
        else assert.equal(res.statusCode, 403, `${key} as ${role}: ${res.body}`);
      }
    }
  });

  test('the users routes are the owner’s: every other role gets 403 insufficient_role and changes nothing', async () => {
    const victim = browsers.get('viewer');
    assert.ok(victim);
    for (const role of USER_ROLES) {
      const b = browsers.get(role);
      assert.ok(b);
      const owner = role === 'owner';
      const list = await call(app, b, 'GET', '/dashboard/api/users');
      const invited = await call(app, b, 'POST', '/dashboard/api/users', { email: uniqueEmail('by'), role: 'viewer' });
      const patched = await call(app, b, 'PATCH', `/dashboard/api/users/${victim.userId}`, { role: 'viewer' });
      for (const res of [list, invited, patched]) {
        if (owner) assert.ok(res.statusCode < 300, res.body);
        else {
          assert.equal(res.statusCode, 403, res.body);
          assert.equal(res.json().error.code, 'insufficient_role');
        }
      }
      if (!owner) assert.equal((await call(app, b, 'DELETE', `/dashboard/api/users/${victim.userId}`)).statusCode, 403);
    }
    const users = (await call(app, browsers.get('owner') as Browser, 'GET', '/dashboard/api/users')).json();
    assert.equal(users.data.length, USER_ROLES.length + 1, 'the five users and the one the owner invited');
    assert.ok(users.data.every((u: { object: string }) => u.object === 'user'));
  });

  test('a developer manages keys within its own scopes only; admins manage any key', async () => {
    const dev = bearer(tokens.get('developer') ?? '');
    const ok = await app.inject({
      method: 'POST',
      url: '/v1/api_keys',
      headers: dev,
      payload: { name: 'Reader', scopes: ['payments:read'] },
    });
    assert.equal(ok.statusCode, 201, ok.body);
    for (const scopes of [['payments:write'], ['all'], ['payments:read', 'refunds:write']]) {
      const res = await app.inject({ method: 'POST', url: '/v1/api_keys', headers: dev, payload: { name: 'Writer', scopes } });
      assert.equal(res.statusCode, 403, `${scopes}: ${res.body}`);
      assert.equal(res.json().error.code, 'insufficient_scope');
    }
    const wide = await app.inject({
      method: 'POST',
      url: '/v1/api_keys',
      headers: bearer(tokens.get('admin') ?? ''),
      payload: { name: 'Writer', scopes: ['payments:write'] },
    });
    assert.equal(wide.statusCode, 201, wide.body);
    for (const [method, suffix] of [
      ['POST', '/roll'],
      ['DELETE', ''],
    ] as const) {
      const res = await app.inject({ method, url: `/v1/api_keys/${wide.json().id}${suffix}`, headers: dev });
      assert.equal(res.statusCode, 403, res.body);
    }
    const revoked = await app.inject({ method: 'DELETE', url: `/v1/api_keys/${ok.json().id}`, headers: dev });
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.equal(revoked.json().status, 'revoked');
    const audit = await app.inject({
      method: 'GET',
      url: '/v1/audit_events?action=api_key.created',
      headers: bearer(tokens.get('owner') ?? ''),
    });
    const actors = audit.json().data.map((e: { actor: { type: string; id: string } }) => e.actor);
    const developer = browsers.get('developer') as Browser;
    assert.ok(
      actors.some((a: { type: string; id: string }) => a.type === 'user' && a.id === developer.userId),
      'the developer is the actor',
    );
  });
});
