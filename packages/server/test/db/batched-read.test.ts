// Batched point reads (src/db/batched-read.ts): lookups that arrive while queries are out share
// the next query; each is answered only by its own row, and only when `accept` says the row may
// answer it; a failed query fails its own lookups and nothing else.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { createBatchedRead } from '../../src/db/batched-read.ts';
import { buildTestApp, createTestMerchant, type TestApp } from '../helpers/app.ts';
import { get, paymentBody, post } from '../helpers/factories.ts';

type Row = { id: string; owner: string };

/** A pool stand-in: records each query's ids, answers from `rows` after a tick, or fails when told. */
function fakePool(rows: Row[], failWhen: (ids: string[]) => boolean = () => false) {
  const queries: string[][] = [];
  const pool = {
    query: async (_text: string, [ids]: [string[]]) => {
      queries.push(ids);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (failWhen(ids)) throw new Error('query failed');
      return { rows: rows.filter((r) => ids.includes(r.id)) };
    },
  } as unknown as pg.Pool;
  return { pool, queries };
}

test('lookups arriving while a query is out share the next one; each gets its own row', async () => {
  const rows = Array.from({ length: 30 }, (_, i) => ({ id: `r${i}`, owner: i % 2 ? 'a' : 'b' }));
  const { pool, queries } = fakePool(rows);
  const read = createBatchedRead<{ id: string; owner: string }, Row>({
    pool,
    text: 'SELECT',
    accept: (lookup, row) => row.owner === lookup.owner,
    maxInFlight: 1,
    maxBatch: 100,
  });
  const lookups = rows.map((r) => ({ id: r.id, owner: 'a' }));
  const answers = await Promise.all([...lookups, { id: 'unknown', owner: 'a' }].map((l) => read.load(l)));
  // The first lookup went alone; the 30 that came while it was out went together.
  assert.deepEqual(
    queries.map((q) => q.length),
    [1, 30],
  );
  for (const [i, answer] of answers.entries()) {
    if (i === 30) assert.equal(answer, undefined, 'an unknown id answers nothing');
    else if (i % 2) assert.deepEqual(answer, rows[i], 'its own row');
    else assert.equal(answer, undefined, "another owner's row answers nothing, like an unknown id");
  }
});

test('a failed query fails only its own lookups', async () => {
  const rows = [
    { id: 'x1', owner: 'a' },
    { id: 'x2', owner: 'a' },
    { id: 'x3', owner: 'a' },
  ];
  const { pool } = fakePool(rows, (ids) => ids.includes('x2'));
  const read = createBatchedRead<{ id: string }, Row>({ pool, text: 'SELECT', accept: () => true, maxInFlight: 1, maxBatch: 1 });
  const settled = await Promise.allSettled(rows.map((r) => read.load({ id: r.id })));
  assert.deepEqual(
    settled.map((s) => s.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
});

let app: TestApp;
before(async () => {
  app = await buildTestApp(null);
});
after(async () => {
  await app.close();
  await app.deps.close();
});

test("GET /v1/payments/{id} under concurrency: its own payment, while another merchant's or an unknown id is 404 in the same batch", async () => {
  const mine = await createTestMerchant(app, 'Batched read, mine');
  const theirs = await createTestMerchant(app, 'Batched read, theirs');
  const own: Record<string, unknown>[] = [];
  for (let i = 0; i < 5; i++) own.push((await post(app, mine, '/v1/payments', paymentBody({ amount: `${i + 1}.00` }))).json());
  const foreign = (await post(app, theirs, '/v1/payments', paymentBody())).json() as { id: string };
  const unknown = `pay_${'0'.repeat(26)}`;
  const paths = [...own.map((p) => p.id as string), foreign.id, unknown, ...own.map((p) => p.id as string)].map(
    (id) => `/v1/payments/${id}`,
  );
  const responses = await Promise.all(paths.map((path) => get(app, mine, path)));
  for (const [i, response] of responses.entries()) {
    const expected: Record<string, unknown> | null | undefined = i < 5 ? own[i] : i >= 7 ? own[i - 7] : null;
    if (expected === null) {
      assert.equal(response.statusCode, 404, response.body);
      assert.equal(response.json().error.code, 'resource_not_found');
    } else {
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), expected);
    }
  }
  // The other merchant reads its own.
  assert.deepEqual((await get(app, theirs, `/v1/payments/${foreign.id}`)).json(), foreign);
});
