// The minimal group-commit reference: the group-commit server's merging (bench/group-commit-server.ts:
// a queue, batches of up to BATCH payments with at most one per wallet, up to FLUSHES flushes in
// flight, one statement of data-modifying CTEs over `unnest` in autocommit per batch, a failed batch
// retried one by one, 409 on a taken reference) writing only what a wallet payment needs at least,
// into narrow tables of its own: one payment row (unique merchant and reference), one conditional
// debit of the wallet (never below zero, also a CHECK), two ledger entries, one event with a small
// payload. No second event, no outbox, no API-sized JSON. It exists to show what grouping commits
// gives with the least work per payment: the reference row `group-commit-minimal`.
//
// At start it recreates schema bench_minimal and funds the wallets it is given (MINIMAL_FUNDING
// minor units each): a payment its wallet does not cover is stored `failed` (no entries), an unknown
// wallet is answered 400 and writes nothing. GET /stats answers, once the queue is empty, how many
// requests it answered per status, so that the bench can check the stored payments against its 201s.
//
// Env: DATABASE_URL, PORT, MINIMAL_WALLETS (comma-separated wallet ids), MINIMAL_POOL_SIZE (default
// 16), MINIMAL_FLUSHES (default 4), MINIMAL_BATCH (default 64).
import Fastify from 'fastify';
import pg from 'pg';
import { typeid } from 'typeid-js';
import { type Answer, closeOnSignals, mergingQueue, type Pending } from './lib/merging.ts';
import { MINIMAL_FUNDING } from './lib/minimal.ts';
import { type Body, major, minor } from './lib/payment-view.ts';

const databaseUrl = process.env.DATABASE_URL;
const wallets = (process.env.MINIMAL_WALLETS ?? '').split(',').filter(Boolean);
const port = Number(process.env.PORT ?? 18202);
if (!databaseUrl || wallets.length === 0) {
  process.stderr.write('minimal-server: DATABASE_URL and MINIMAL_WALLETS are required\n');
  process.exit(1);
}
const FLUSHES = Number(process.env.MINIMAL_FLUSHES ?? 4);
const BATCH = Number(process.env.MINIMAL_BATCH ?? 64);
const MERCHANT = 'mer_minimal';

// Every connection works in the server's own schema: the statements name its tables unqualified.
const pool = new pg.Pool({
  connectionString: databaseUrl,
  max: Number(process.env.MINIMAL_POOL_SIZE ?? 16),
  options: '-c search_path=bench_minimal',
});

const SCHEMA = `
  DROP SCHEMA IF EXISTS bench_minimal CASCADE;
  CREATE SCHEMA bench_minimal;
  CREATE TABLE wallets (id text PRIMARY KEY, balance bigint NOT NULL CHECK (balance >= 0));
  CREATE TABLE payments (
    id text PRIMARY KEY, merchant_id text NOT NULL, reference text NOT NULL, wallet_id text NOT NULL,
    amount bigint NOT NULL, currency text NOT NULL, status text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (merchant_id, reference)
  );
  CREATE TABLE ledger_entries (
    id text PRIMARY KEY, payment_id text NOT NULL, account text NOT NULL, amount bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE events (
    id text PRIMARY KEY, payment_id text NOT NULL, type text NOT NULL, payload jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );`;

// One statement per batch: $1 the merchant, then one array per column (one element per payment).
// Wallets are locked in id order (`locked`) so that concurrent batches cannot deadlock; a payment
// whose wallet is unknown has no `locked` row and drops out of `outcome` (no row: 400).
const BATCH_STATEMENT = `
  WITH input AS (
    SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[])
      AS t(id, reference, wallet_id, amount, currency, debit_entry, credit_entry, event_id)
  ),
  locked AS MATERIALIZED (
    SELECT id FROM wallets WHERE id IN (SELECT wallet_id FROM input) ORDER BY id FOR UPDATE
  ),
  debited AS (
    UPDATE wallets w SET balance = w.balance - i.amount
    FROM locked l JOIN input i ON i.wallet_id = l.id
    WHERE w.id = l.id AND w.balance >= i.amount
    RETURNING i.id
  ),
  outcome AS (
    SELECT i.*, d.id IS NOT NULL AS ok FROM input i JOIN locked l ON l.id = i.wallet_id LEFT JOIN debited d ON d.id = i.id
  ),
  payment AS (
    INSERT INTO payments (id, merchant_id, reference, wallet_id, amount, currency, status)
    SELECT o.id, $1, o.reference, o.wallet_id, o.amount, o.currency, CASE WHEN o.ok THEN 'succeeded' ELSE 'failed' END
    FROM outcome o
    RETURNING id, reference, wallet_id, amount, currency, status, created_at
  ),
  entries AS (
    INSERT INTO ledger_entries (id, payment_id, account, amount)
    SELECT o.debit_entry, o.id, 'wallet:' || o.wallet_id, -o.amount FROM outcome o WHERE o.ok
    UNION ALL
    SELECT o.credit_entry, o.id, 'merchant:' || $1, o.amount FROM outcome o WHERE o.ok
  ),
  event AS (
    INSERT INTO events (id, payment_id, type, payload)
    SELECT o.event_id, o.id, CASE WHEN o.ok THEN 'payment.succeeded' ELSE 'payment.failed' END,
           jsonb_build_object('amount', o.amount, 'currency', o.currency, 'wallet_id', o.wallet_id)
    FROM outcome o
  )
  SELECT * FROM payment`;

function batchParameters(batch: Pending[]): unknown[] {
  const columns: unknown[][] = Array.from({ length: 8 }, () => []);
  for (const p of batch) {
    const values = [
      typeid('pay').toString(),
      p.body.reference,
      p.walletId,
      p.amount.toString(),
      p.body.currency,
      typeid('le').toString(),
      typeid('le').toString(),
      typeid('evt').toString(),
    ];
    for (const [i, v] of values.entries()) columns[i]!.push(v);
  }
  return [MERCHANT, ...columns];
}

const answered: Record<number, number> = {};

async function runBatch(batch: Pending[]): Promise<void> {
  const result = await pool.query({ name: 'minimal-batch', text: BATCH_STATEMENT, values: batchParameters(batch) });
  const byReference = new Map(result.rows.map((row) => [row.reference as string, row]));
  for (const p of batch) {
    const row = byReference.get(p.body.reference);
    if (!row) {
      p.resolve({ status: 400, body: { error: 'no such wallet' } });
      continue;
    }
    const { id, reference, wallet_id, currency, status } = row;
    p.resolve({
      status: 201,
      body: { id, object: 'payment', reference, status, amount: major(row.amount), currency, wallet_id, created_at: row.created_at },
    });
  }
}

const merging = mergingQueue({ batch: BATCH, flushes: FLUSHES, run: runBatch });

const app = Fastify({ logger: false });

app.get('/healthz', async () => ({ status: 'ok' }));

app.get('/stats', async () => {
  while (!merging.idle()) await new Promise((r) => setTimeout(r, 10));
  return { answered };
});

app.post('/payments', async (request, reply) => {
  const body = request.body as Body;
  const walletId = body?.payment_method?.wallet?.wallet_id;
  const valid =
    typeof walletId === 'string' &&
    typeof body.reference === 'string' &&
    typeof body.currency === 'string' &&
    /^\d+\.\d\d$/.test(body.amount ?? '');
  const answer: Answer = valid
    ? await merging.submit({ body, walletId, amount: minor(body.amount) })
    : { status: 400, body: { error: 'invalid request' } };
  answered[answer.status] = (answered[answer.status] ?? 0) + 1;
  return reply.code(answer.status).send(answer.body);
});

closeOnSignals(app, pool);

async function start(): Promise<void> {
  await pool.query(SCHEMA);
  await pool.query('INSERT INTO wallets (id, balance) SELECT unnest($1::text[]), $2', [wallets, MINIMAL_FUNDING.toString()]);
  await app.listen({ port, host: '127.0.0.1' });
}

start().catch((error: unknown) => {
  process.stderr.write(`minimal-server: ${String(error)}\n`);
  process.exit(1);
});
