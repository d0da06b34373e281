// No sequential scan of a growing table on any hot path, on a database analyzed while empty and
// then grown (the scenario: test/db/plans.ts; its negative control, which drops an index, runs in
// `npm run test:negative-control`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usePrivatePostgres } from '../webhooks/support.ts';
import { runPlans, unexpectedScans } from './plans.ts';

// Its own database on PostgreSQL: it analyzes, and counts scans of every table. PostgreSQL only:
// the trap it guards against is a pool connection's cached plan, and the embedded database (one
// session) runs the same statements; its statistics worker is proven by statistics.test.ts on both,
// and the embedded long run (`npm run bench -- --long`) shows it holding. `npm test` with
// DATABASE_URL (CI's second run) runs it.
usePrivatePostgres();

test('every hot path uses an index on a database analyzed while empty, then grown', {
  skip: process.env.TEST_DATABASE_URL ? false : 'needs PostgreSQL (TEST_DATABASE_URL): the plans of a connection pool',
}, async (t) => {
  const verdict = await runPlans({ log: (line) => t.diagnostic(line) });
  assert.deepEqual(verdict.failures, {}, 'every request of the scenario succeeded');
  for (const [table, rows] of Object.entries(verdict.rows)) assert.ok(rows >= 200, `${table} grew (${rows} rows)`);
  assert.deepEqual(unexpectedScans(verdict), {}, 'operations that scanned a whole growing table');
});
