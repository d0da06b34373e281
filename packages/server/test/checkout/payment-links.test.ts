// Payment links over HTTP: create (fixed or open amount), retrieve, list, PATCH active, bad
// input, isolation; each visit of the link opens a fresh checkout session of the link.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkoutApp, merchantClient } from './support.ts';

const KEYS = [
  'id',
  'object',
  'url',
  'amount',
  'currency',
  'description',
  'payment_method_types',
  'after_completion_url',
  'active',
  'livemode',
  'created_at',
  'updated_at',
];

test('create, retrieve, list, turn off and on', async (t) => {
  const { api } = await checkoutApp(t);
  const res = await api.post('/v1/payment_links', {
    amount: '25',
    currency: 'KES',
    description: 'Yoga class',
    after_completion_url: 'https://shop.example/thanks',
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const link = res.body;
  assert.deepEqual(Object.keys(link), KEYS);
  assert.match(link.id, /^plink_[0-9a-z]{26}$/);
  assert.equal(res.headers.get('location'), `/v1/payment_links/${link.id}`);
  assert.deepEqual([link.amount, link.active, link.livemode], ['25.00', true, false]);
  assert.deepEqual(link.payment_method_types, ['card', 'mobile_money']);
  assert.match(new URL(link.url).pathname, /^\/pay\/link\/[A-Za-z0-9_-]{43}$/);
  assert.ok(!link.url.includes(link.id.slice(6)));
  const open = (
    await api.post('/v1/payment_links', {
      amount: null,
      currency: 'UGX',
      description: 'Tips',
      payment_method_types: ['mobile_money'],
      active: false,
    })
  ).body;
  assert.deepEqual([open.amount, open.active, open.after_completion_url], [null, false, null]);
  assert.deepEqual((await api.get(`/v1/payment_links/${link.id}`)).body, link);
  const list = (await api.get('/v1/payment_links')).body;
  assert.deepEqual(
    list.data.map((l: { id: string }) => l.id),
    [open.id, link.id],
  );
  assert.deepEqual(
    (await api.get('/v1/payment_links?active=false')).body.data.map((l: { id: string }) => l.id),
    [open.id],
  );
  const off = await fetchPatch(api, link.id, { active: false });
  assert.equal(off.active, false);
  assert.equal((await fetchPatch(api, link.id, { active: true })).active, true);
});

async function fetchPatch(
  api: { raw: (m: string, p: string, b: unknown) => Promise<{ body: { active: boolean } }> } | any,
  id: string,
  body: unknown,
) {
  return (await api.raw('PATCH', `/v1/payment_links/${id}`, body)).body;
}

test('bad input and isolation', async (t) => {
  const { api, app, base } = await checkoutApp(t);
  const bad: Array<[Record<string, unknown>, string]> = [
    [{ currency: 'KES' }, 'description'],
    [{ currency: 'KES', description: 'x', amount: 25 }, 'amount'],
    [{ currency: 'KES', description: 'x', amount: '0' }, 'amount'],
    [{ currency: 'kes', description: 'x' }, 'currency'],
    [{ currency: 'KES', description: 'x', after_completion_url: 'ftp://x' }, 'after_completion_url'],
    [{ currency: 'KES', description: 'x', active: 'yes' }, 'active'],
    [{ currency: 'KES', description: 'x', url: 'https://x' }, 'url'],
  ];
  for (const [body, param] of bad) {
    const res = await api.post('/v1/payment_links', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.param, param, JSON.stringify(res.body));
  }
  const link = (await api.post('/v1/payment_links', { currency: 'KES', description: 'Mine', amount: '5' })).body;
  const { api: other } = await merchantClient(app, base, 'Other');
  assert.equal((await other.get(`/v1/payment_links/${link.id}`)).status, 404);
  assert.equal((await other.raw('PATCH', `/v1/payment_links/${link.id}`, { active: false })).status, 404);
  assert.deepEqual((await other.get('/v1/payment_links')).body.data, []);
  assert.equal((await api.get(`/v1/payment_links/${link.id}`)).body.active, true);
});

test('each visit opens a fresh session of the link; an inactive link opens none', async (t) => {
  const { api, base } = await checkoutApp(t);
  const link = (await api.post('/v1/payment_links', { currency: 'KES', description: 'Class', amount: '12.50' })).body;
  const path = new URL(link.url).pathname;
  const visits = [];
  for (let i = 0; i < 2; i++) {
    const res = await fetch(base + path, { redirect: 'manual' });
    assert.equal(res.status, 303);
    visits.push(res.headers.get('location'));
  }
  assert.notEqual(visits[0], visits[1]);
  const sessions = (await api.get(`/v1/checkout_sessions?payment_link=${link.id}`)).body.data;
  assert.equal(sessions.length, 2);
  for (const s of sessions) {
    assert.deepEqual([s.amount, s.description, s.payment_link, s.success_url, s.cancel_url], ['12.50', 'Class', link.id, null, null]);
    assert.ok(s.reference.startsWith(`${link.id}/`));
  }
  await api.raw('PATCH', `/v1/payment_links/${link.id}`, { active: false });
  const gone = await fetch(base + path, { redirect: 'manual' });
  assert.equal(gone.status, 410);
  assert.equal((await api.get(`/v1/checkout_sessions?payment_link=${link.id}`)).body.data.length, 2);
  assert.equal((await fetch(`${base}/pay/link/${'y'.repeat(43)}`)).status, 404);
});
