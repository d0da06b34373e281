// One table (src/route-scopes.ts) declares each /v1 route's scope. This file checks that it
// names exactly the routes Fastify registered (a new route without a scope fails here), then
// calls every route with a token of every single scope: refused with 403 insufficient_scope and
// the RFC 6750 header exactly when the scope does not grant the route.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { API_KEY_SCOPES, grants } from '../../src/api-keys/scopes.ts';
import { ROUTE_SCOPES } from '../../src/route-scopes.ts';
import { newId } from '../../src/shared/ids.ts';
import { createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { appWithRoutes, type Route } from '../helpers/routes.ts';
import { type KeyClient, keyWith } from './support.ts';

const key = (r: Route) => `${r.method} ${r.url}`;
/** Ids that exist nowhere: an allowed request answers 404 or 400, never creates or changes anything. */
const fill = (url: string) => url.replace(/:[A-Za-z_]+/g, () => newId('payment'));

describe('route scopes', () => {
  let app: TestApp;
  let routes: Route[];
  let m: TestMerchant;
  before(async () => {
    ({ app, routes } = await appWithRoutes());
    routes = routes.filter((r) => r.url.startsWith('/v1/') && r.method !== 'HEAD');
    m = await createTestMerchant(app, 'Scopes');
  });
  after(async () => {
    await app.close();
    await app.deps.close();
  });

  test('the table names every registered /v1 route, and only those', () => {
    const registered = new Set(routes.map(key));
    assert.deepEqual(
      routes.map(key).filter((k) => !(k in ROUTE_SCOPES)),
      [],
      'routes without a declared scope (add them to src/route-scopes.ts)',
    );
    assert.deepEqual(
      Object.keys(ROUTE_SCOPES).filter((k) => !registered.has(k)),
      [],
      'scopes declared for routes that do not exist',
    );
  });

  test('a route missing from the table is refused to every token, `all` included (fails closed)', async () => {
    const { requireScope } = await import('../../src/http/scope.ts');
    const check = requireScope({});
    const request = { routeOptions: { url: '/v1/merchant' }, method: 'GET', auth: { scopes: ['all'] } };
    await assert.rejects(check(request as never, {} as never), { code: 'insufficient_scope' });
  });

  for (const scope of API_KEY_SCOPES) {
    test(`a ${scope} token on every route: 403 insufficient_scope exactly outside its scope`, async () => {
      const client: KeyClient = await keyWith(app, m, [scope], `only ${scope}`);
      for (const route of routes) {
        const required = ROUTE_SCOPES[key(route)];
        assert.ok(required);
        const res = await app.inject({
          method: route.method as 'GET',
          url: fill(route.url),
          headers: client.auth,
          ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: {} }),
        });
        if (grants([scope], required)) {
          assert.notEqual(res.statusCode, 403, `${key(route)} with ${scope}: ${res.body}`);
          assert.notEqual(res.statusCode, 401, `${key(route)} with ${scope}: ${res.body}`);
          continue;
        }
        assert.equal(res.statusCode, 403, `${key(route)} with ${scope}: ${res.body}`);
        assert.equal(res.json().error.code, 'insufficient_scope');
        assert.equal(res.json().error.type, 'invalid_request_error');
        // manage_keys: an API key needs `all` for it (a developer's session token is the other way in: test/users).
        const named = required === 'manage_keys' ? 'all' : required;
        assert.equal(res.headers['www-authenticate'], `Bearer realm="payments", error="insufficient_scope", scope="${named}"`);
      }
    });
  }
});
