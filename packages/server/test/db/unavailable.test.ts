// Database errors that mean "no writable primary right now" (db/errors.ts), as the driver really
// raises them, and a group-commit batch whose COMMIT never answered: each must become a 503
// (docs/failover.md), never a 500, and a batch of unknown outcome answers no one with success.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import pg from 'pg';
import { CommitOutcomeUnknown, unavailableCause } from '../../src/db/errors.ts';
import { type BatchContext, executeBatch, type Pending } from '../../src/db/group-commit.ts';
import { freePort } from '../helpers/processes.ts';

async function connectError(port: number, timeoutMs: number): Promise<unknown> {
  const pool = new pg.Pool({ host: '127.0.0.1', port, user: 'postgres', connectionTimeoutMillis: timeoutMs, max: 1 });
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
    return null;
  } catch (error) {
    return error;
  } finally {
    void pool.end().catch(() => {});
  }
}

test('a primary that accepts the connection and never answers: the pool connect timeout is connect_timeout', async (t) => {
  const sockets = new Set<import('node:net').Socket>();
  const silent = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
  const error = await connectError((silent.address() as { port: number }).port, 300);
  assert.ok(error, 'the connection failed');
  assert.equal(unavailableCause(error), 'connect_timeout', String(error));
});

test('nobody listening (HAProxy has no primary to send to, a node down): connection_refused', async () => {
  const error = await connectError(await freePort(), 2_000);
  assert.equal(unavailableCause(error), 'connection_refused', String(error));
});

test('SQLSTATEs of a failover are unavailability, each with its cause; others are not', () => {
  const withCode = (code: string) => Object.assign(new Error(code), { code });
  assert.equal(unavailableCause(withCode('25006')), 'read_only');
  assert.equal(unavailableCause(withCode('57P01')), 'shutdown');
  assert.equal(unavailableCause(withCode('08006')), 'connection_lost');
  assert.equal(unavailableCause(withCode('ECONNRESET')), 'connection_lost');
  assert.equal(unavailableCause(withCode('40P01')), 'conflict');
  assert.equal(unavailableCause(new Error('Connection terminated unexpectedly')), 'connection_lost');
  assert.equal(unavailableCause(withCode('23505')), undefined);
  assert.equal(unavailableCause(new Error('merged write returned no row')), undefined);
});

test('a batch whose COMMIT fails: its outcome is unknown, no item is answered with success', async () => {
  const sent: string[] = [];
  const client = {
    query: async (text: string) => {
      sent.push(text);
      if (text === 'COMMIT') throw new Error('Connection terminated unexpectedly');
      return { rows: [] };
    },
  } as unknown as pg.PoolClient;
  const answered: string[] = [];
  const item = (): Pending =>
    ({
      query: { sql: 'SELECT 1', parameters: [] },
      resolve: () => answered.push('resolved'),
      reject: () => answered.push('rejected'),
    }) as unknown as Pending;
  const context: BatchContext = { runUnit: async () => [{ rows: [] }], runAlone: async () => {} };
  const error = await executeBatch(client, [item(), item()], context).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(error instanceof CommitOutcomeUnknown, String(error));
  assert.equal(unavailableCause(error), 'commit_unknown');
  assert.deepEqual(answered, [], 'the group commit rejects them all with this error (runBatch): none resolved');
  assert.deepEqual(sent, ['BEGIN', 'COMMIT']);
});
