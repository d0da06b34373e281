import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';

test('healthz and readyz answer without a token', async (t) => {
  const app = await buildTestApp(t);
  const health = await app.inject({ method: 'GET', url: '/healthz' });
  assert.equal(health.statusCode, 200);
  assert.deepEqual(health.json(), { status: 'ok' });
  const ready = await app.inject({ method: 'GET', url: '/readyz' });
  assert.equal(ready.statusCode, 200);
  const body = ready.json();
  assert.equal(body.status, 'ready');
  assert.equal(body.limits, 'per process');
  // The node answering takes writes; no standby replicates from it (one node: the embedded database or the test's PostgreSQL).
  assert.equal(body.database.writable, true);
  assert.equal(body.database.synchronous_standbys, 0);
  assert.match(body.database.primary.system_identifier, /^\d+$/);
  assert.equal(typeof body.database.primary.timeline, 'number');
  assert.match(String(ready.headers['request-id']), /^req_/);
});

test('metrics count requests by route pattern and status, in Prometheus text', async (t) => {
  const app = await buildTestApp(t);
  const merchant = await createTestMerchant(app);
  await app.inject({ method: 'GET', url: '/v1/merchant', headers: merchant.auth });
  await app.inject({ method: 'GET', url: '/v1/payments/pay_01m81jrt7denf8yb3hbmsbk6m9', headers: merchant.auth });
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/plain/);
  assert.match(res.body, /purse_http_requests_total\{method="GET",route="\/v1\/merchant",status="200"\} 1/);
  assert.match(res.body, /purse_http_requests_total\{method="GET",route="\/v1\/payments\/:id",status="404"\} 1/);
  assert.match(res.body, /purse_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/v1\/merchant",status="200"\}/);
  assert.doesNotMatch(res.body, /pay_01m81jrt7denf8yb3hbmsbk6m9/, 'ids never become label values');
});

test('the interactive reference works offline: its page and assets are served locally', async (t) => {
  const app = await buildTestApp(t);
  const page = await app.inject({ method: 'GET', url: '/docs/' });
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /text\/html/);
  const srcs = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  assert.ok(srcs.length > 0);
  for (const src of srcs) assert.doesNotMatch(src, /^(https?:)?\/\//, `external asset ${src}`);
  for (const src of srcs.filter((s) => s.endsWith('.js') || s.endsWith('.css'))) {
    const url = src.startsWith('/') ? src : `/docs/${src.replace(/^\.\//, '')}`;
    assert.equal((await app.inject({ method: 'GET', url })).statusCode, 200, url);
  }
  const initializer = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
  assert.equal(initializer.statusCode, 200);
  assert.doesNotMatch(initializer.body, /url["']?\s*:\s*["']https?:/, 'the reference loads no remote document');
  assert.equal((await app.inject({ method: 'GET', url: '/docs/json' })).statusCode, 200);
});
