// Database errors are logged by code, constraint and the first clause of their message, never with
// the values PostgreSQL quotes in the message, detail or where: a canary value put into a failing
// statement never reaches the log line. Other errors keep message and stack.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { sql } from 'kysely';
import { pino } from 'pino';
import { loggerOptions, serializeError } from '../../src/shared/logging.ts';
import { buildTestApp } from '../helpers/app.ts';

test('a database error quoting row values logs its code and no value; a plain error keeps its message', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = await buildTestApp(t, { logger: pino(loggerOptions('info') as object, stream) });
  const canaries = ['canary-amina@example.com', 'Canary Wanjiku'];
  const failures: unknown[] = [];
  for (const statement of [
    sql`SELECT ${canaries[0]}::int`,
    sql`SELECT ${`{"name": "${canaries[1]}"`}::json`,
    sql`SELECT (${canaries[1]}::text)::numeric`,
  ]) {
    try {
      await statement.execute(app.deps.db.db);
      assert.fail('the statement should fail');
    } catch (error) {
      failures.push(error);
    }
  }
  // A canary that does reach the raw error proves the test can see a leak.
  assert.ok(
    failures.some((e) => JSON.stringify({ m: (e as Error).message, d: (e as { detail?: string }).detail }).includes('Canary')),
    'the raw errors carry the values',
  );
  for (const error of failures) {
    app.log.error({ err: error }, 'statement failed');
    const logged = JSON.stringify(serializeError(error));
    assert.match(logged, /"code":"22P02"|"code":"22[0-9A-Z]{3}"/);
    for (const canary of canaries) assert.equal(logged.includes(canary), false, `${canary} in ${logged}`);
  }
  const all = lines.join('');
  assert.equal(lines.length, failures.length);
  for (const canary of canaries) assert.equal(all.includes(canary), false, 'nothing of the row reaches the log');

  const plain = serializeError(new Error('the provider answered 502')) as { message: string; stack: string };
  assert.equal(plain.message, 'the provider answered 502');
  assert.match(plain.stack, /error-logging\.test\.ts/);
});
