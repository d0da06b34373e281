import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Fastify from 'fastify';
import { registerDashboardRoutes } from '../../src/dashboard/routes.ts';
import { buildTestApp } from '../helpers/app.ts';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function assertSecurityHeaders(headers: Record<string, unknown>): void {
  assert.equal(headers['content-security-policy'], CSP);
  assert.equal(headers['x-content-type-options'], 'nosniff');
  assert.equal(headers['referrer-policy'], 'no-referrer');
  assert.equal(headers['x-frame-options'], 'DENY');
  assert.equal(headers['cross-origin-opener-policy'], 'same-origin');
}

test('the page, its client routes and its hashed assets, with the security and cache headers', async (t) => {
  const app = await buildTestApp(t);
  for (const url of ['/dashboard', '/dashboard/', '/dashboard/payments/pay_123']) {
    const page = await app.inject({ method: 'GET', url });
    assert.equal(page.statusCode, 200, url);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(page.headers['cache-control'], 'no-cache');
    assertSecurityHeaders(page.headers);
    assert.match(page.body, /<script type="module" crossorigin src="\/dashboard\/assets\/[^"]+\.js">/);
  }
  const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec((await app.inject({ method: 'GET', url: '/dashboard' })).body)?.[1];
  const asset = await app.inject({ method: 'GET', url: script as string });
  assert.equal(asset.statusCode, 200);
  assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
  assertSecurityHeaders(asset.headers);

  const missing = await app.inject({ method: 'GET', url: '/dashboard/assets/gone-1234.js' });
  assert.equal(missing.statusCode, 404, 'a missing asset is not answered with the page');
});

test("the dashboard's pages are not part of the API document; its sign-in and session routes are, under their own tag", async (t) => {
  const app = await buildTestApp(t);
  const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const paths = Object.keys(document.paths);
  assert.deepEqual(
    paths.filter((p) => p.startsWith('/dashboard') && !p.startsWith('/dashboard/api/')),
    [],
  );
  const sessionRoutes = paths.filter((p) => p.startsWith('/dashboard/api/'));
  assert.ok(sessionRoutes.includes('/dashboard/api/sign-in'), 'the sign-in route is documented');
  for (const path of sessionRoutes)
    for (const operation of Object.values(document.paths[path]) as { tags?: string[] }[])
      assert.deepEqual(operation.tags, ['Dashboard sign-in'], path);
});

test('without a build, /dashboard answers 503 saying how to build it', async (t) => {
  const app = Fastify();
  t.after(() => app.close());
  await registerDashboardRoutes(app, { distDir: mkdtempSync(join(tmpdir(), 'purse-no-dashboard-')) });
  for (const url of ['/dashboard', '/dashboard/payments']) {
    const res = await app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 503);
    assert.match(res.body, /npm install/);
    assertSecurityHeaders(res.headers);
  }
});
