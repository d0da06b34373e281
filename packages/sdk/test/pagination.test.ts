// Lists against a fake Purse: the query string (numbers written out, empty values left out), one
// page when awaited, every page when iterated (fetched only as needed), and path parameters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Purse, PurseError } from '../src/index.ts';
import { page, type Seen, startFakePurse } from './fake-purse.ts';

const ids = Array.from({ length: 12 }, (_, i) => `pay_${String(12 - i).padStart(2, '0')}`);

/** GET /v1/payments over `ids`, newest first, honouring limit and starting_after like Purse. */
function listPayments(req: Seen) {
  if (req.path !== '/v1/payments') return undefined;
  const limit = Number(req.query.get('limit') ?? '10');
  const after = req.query.get('starting_after');
  const from = after === null ? 0 : ids.indexOf(after) + 1;
  return page(ids.slice(from, from + limit), from + limit < ids.length);
}

const client = (base: string) => new Purse({ baseUrl: base, clientId: 'cli_1', clientSecret: 'sk_test_1' });

test('await gives the first page only; limit is a number written as text; undefined and null are left out', async (t) => {
  const fake = await startFakePurse(listPayments);
  t.after(() => fake.close());
  const first = await client(fake.base).payments.list({ limit: 5, status: 'succeeded', reference: undefined });
  assert.deepEqual(
    first.data.map((p) => p.id),
    ids.slice(0, 5),
  );
  assert.equal(first.has_more, true);
  assert.deepEqual(
    fake.calls().map((c) => c.url),
    ['/v1/payments?limit=5&status=succeeded'],
  );
  assert.equal(fake.calls()[0]!.method, 'GET');
  assert.equal(fake.calls()[0]!.headers['content-type'], undefined, 'a GET sends no body');
});

test('for await walks every item of every page, each next page after the last id seen', async (t) => {
  const fake = await startFakePurse(listPayments);
  t.after(() => fake.close());
  const seen: string[] = [];
  for await (const payment of client(fake.base).payments.list({ limit: 5, ending_before: 'pay_99' })) seen.push(payment.id);
  assert.deepEqual(seen, ids);
  assert.deepEqual(
    fake.calls().map((c) => c.url),
    [
      '/v1/payments?limit=5&ending_before=pay_99',
      '/v1/payments?limit=5&starting_after=pay_08',
      '/v1/payments?limit=5&starting_after=pay_03',
    ],
    'ending_before applies to the first page only; then starting_after the last item',
  );
});

test('pages are fetched as they are needed: breaking out early fetches no more', async (t) => {
  const fake = await startFakePurse(listPayments);
  t.after(() => fake.close());
  for await (const payment of client(fake.base).payments.list({ limit: 5 })) {
    if (payment.id === ids[2]) break;
  }
  assert.equal(fake.calls().length, 1);
});

test('an empty page that says has_more ends the walk instead of asking forever', async (t) => {
  const fake = await startFakePurse((req) => (req.path === '/v1/events' ? page([], true) : undefined));
  t.after(() => fake.close());
  const all = [];
  for await (const event of client(fake.base).events.list()) all.push(event);
  assert.deepEqual(all, []);
  assert.equal(fake.calls().length, 1);
});

test('path parameters are filled in encoded; an empty id is refused before any request', async (t) => {
  const fake = await startFakePurse((req) => {
    if (req.path.startsWith('/v1/wallets/'))
      return req.path.endsWith('/transactions') ? page(['wtx_1'], false) : { status: 200, json: { id: 'x' } };
    return undefined;
  });
  t.after(() => fake.close());
  const purse = client(fake.base);
  await purse.wallets.retrieve('wal_1/../x?y');
  for await (const line of purse.wallets.transactions('wal_2', { limit: 1 })) assert.equal(line.id, 'wtx_1');
  assert.deepEqual(
    fake.calls().map((c) => c.url),
    ['/v1/wallets/wal_1%2F..%2Fx%3Fy', '/v1/wallets/wal_2/transactions?limit=1'],
  );
  await assert.rejects(
    purse.payments.retrieve(''),
    (e: unknown) => e instanceof PurseError && e.code === 'parameter_missing' && e.param === 'id',
  );
  assert.equal(fake.calls().length, 2, 'nothing sent for the empty id');
});
