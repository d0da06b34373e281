// The group-commit reference: a minimal Fastify + pg server with ONE route, POST /payments, writing
// the same rows as the naive baseline's wallet payment (bench/baseline-server.ts: the charge, the
// wallet debit, the balanced posting, two events with their outbox fan-out), but concurrent
// requests are merged. A request is queued; a flush takes up to BATCH queued payments (never two
// on one wallet: a later payment on a wallet already in the batch waits for the next one) and runs
// them as ONE statement (data-modifying CTEs over `unnest` of parameter arrays) in autocommit, so
// one round trip and ONE commit for the whole batch, then answers every request with its own row.
// Up to FLUSHES flushes run at once, one pool connection each; requests arriving while they are all
// in flight wait in the queue and go in the next batch.
//
// Each payment succeeds or fails on its own: the debit is conditional per wallet (active, balance
// covers the amount), and a payment whose debit did not happen is stored `failed`
// (insufficient_funds) with its failed event, inside the same statement. An unknown wallet (or one
// of another merchant or currency) is answered 400 and writes nothing. If the batch statement fails
// as a whole (a reference already taken, a deadlock), its payments are retried one by one, so the
// error reaches only the payment that caused it (a taken reference: 409).
//
// Wallet rows are locked in id order (the `locked` CTE) so that concurrent batches cannot deadlock.
// It exists to show what grouping commits gives on this machine: the reference row `group-commit`.
//
// Env: DATABASE_URL, PORT, GROUP_COMMIT_MERCHANT_ID (or BASELINE_MERCHANT_ID), GROUP_COMMIT_POOL_SIZE
// (default 16), GROUP_COMMIT_FLUSHES (flushes in flight, default 4), GROUP_COMMIT_BATCH (default 64).
import Fastify from 'fastify';
import pg from 'pg';
import { typeid } from 'typeid-js';
import { closeOnSignals, mergingQueue, type Pending } from './lib/merging.ts';
import { type Body, hash, minor, view } from './lib/payment-view.ts';

const databaseUrl = process.env.DATABASE_URL;
const merchantId = process.env.GROUP_COMMIT_MERCHANT_ID ?? process.env.BASELINE_MERCHANT_ID;
const port = Number(process.env.PORT ?? 18201);
if (!databaseUrl || !merchantId) {
  process.stderr.write('group-commit-server: DATABASE_URL and GROUP_COMMIT_MERCHANT_ID are required\n');
  process.exit(1);
}
const FLUSHES = Number(process.env.GROUP_COMMIT_FLUSHES ?? 4);
const BATCH = Number(process.env.GROUP_COMMIT_BATCH ?? 64);

const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.GROUP_COMMIT_POOL_SIZE ?? 16) });

// One statement per batch: $1 the merchant, then one array per column (one element per payment).
const BATCH_STATEMENT = `
  WITH input AS (
    SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[],
                         $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
                         $16::text[], $17::timestamptz[])
      AS t(id, reference, wallet_id, amount, currency, fingerprint, method, created_event, created_data,
           final_event, succeeded_data, failed_data, ltx, debit_entry, credit_entry, at)
  ),
  known AS (
    SELECT i.* FROM input i JOIN wallets w ON w.id = i.wallet_id AND w.merchant_id = $1 AND w.currency = i.currency
  ),
  locked AS MATERIALIZED (
    SELECT w.id FROM wallets w WHERE w.id IN (SELECT wallet_id FROM known) ORDER BY w.id FOR UPDATE
  ),
  debited AS (
    UPDATE wallets w SET balance = w.balance - k.amount, updated_at = k.at
    FROM locked l JOIN known k ON k.wallet_id = l.id
    WHERE w.id = l.id AND w.status = 'active' AND w.balance >= k.amount
    RETURNING k.id, w.balance
  ),
  outcome AS (
    SELECT k.*, d.id IS NOT NULL AS ok, d.balance FROM known k LEFT JOIN debited d ON d.id = k.id
  ),
  charge AS (
    INSERT INTO charges (id, kind, merchant_id, reference, request_fingerprint, status, amount, currency, method_type, method,
                         wallet_id, customer, description, metadata, callback_url, failure_code, failure_message, provider,
                         livemode, created_at, updated_at, completed_at, expires_at, lease_until, next_check_at)
    SELECT o.id, 'payment', $1, o.reference, o.fingerprint::jsonb, CASE WHEN o.ok THEN 'succeeded' ELSE 'failed' END,
           o.amount, o.currency, 'wallet', o.method::jsonb, o.wallet_id, NULL, NULL, '{}'::jsonb, NULL,
           CASE WHEN o.ok THEN NULL ELSE 'insufficient_funds' END,
           CASE WHEN o.ok THEN NULL ELSE 'The wallet does not cover the amount.' END,
           'purse', false, o.at, o.at, o.at, NULL, NULL, NULL
    FROM outcome o
    RETURNING *
  ),
  ev AS (
    INSERT INTO events (id, merchant_id, type, object_id, data, livemode, created_at)
    SELECT o.created_event, $1, 'payment.created', o.id, o.created_data::jsonb, false, o.at FROM outcome o
    UNION ALL
    SELECT o.final_event, $1, CASE WHEN o.ok THEN 'payment.succeeded' ELSE 'payment.failed' END, o.id,
           (CASE WHEN o.ok THEN o.succeeded_data ELSE o.failed_data END)::jsonb, false, o.at
    FROM outcome o
    RETURNING id, merchant_id, type, created_at
  ),
  deliveries AS (
    INSERT INTO webhook_deliveries (id, event_id, merchant_id, endpoint_id, url, status, next_attempt_at, created_at, updated_at)
    SELECT 'del_' || replace(gen_random_uuid()::text, '-', ''), ev.id, ev.merchant_id, e.id, e.url, 'pending', ev.created_at,
           ev.created_at, ev.created_at
    FROM ev JOIN webhook_endpoints e
      ON e.merchant_id = ev.merchant_id AND e.status = 'enabled' AND (cardinality(e.events) = 0 OR ev.type = ANY (e.events))
  ),
  posting AS (
    INSERT INTO ledger_transactions (id, merchant_id, source_type, source_id, created_at)
    SELECT o.ltx, $1, 'payment', o.id, o.at FROM outcome o WHERE o.ok
  ),
  entries AS (
    INSERT INTO ledger_entries (id, transaction_id, account, currency, amount, balance_after, source_type, source_id, created_at)
    SELECT o.debit_entry, o.ltx, 'wallet:' || o.wallet_id, o.currency, -o.amount, o.balance, 'payment', o.id, o.at
    FROM outcome o WHERE o.ok
    UNION ALL
    SELECT o.credit_entry, o.ltx, 'merchant:' || $1 || ':' || o.currency, o.currency, o.amount, NULL, 'payment', o.id, o.at
    FROM outcome o WHERE o.ok
  )
  SELECT * FROM charge`;

/** One column array per statement parameter, filled payment by payment. */
function batchParameters(batch: Pending[]): unknown[] {
  const columns: unknown[][] = Array.from({ length: 16 }, () => []);
  for (const p of batch) {
    const now = new Date();
    const id = typeid('pay').toString();
    const fingerprint = Object.fromEntries(
      Object.entries({
        amount: p.amount.toString(),
        currency: p.body.currency,
        payment_method: p.body.payment_method,
        description: null,
        metadata: {},
        callback_url: null,
        customer: null,
      }).map(([k, v]) => [k, hash(v)]),
    );
    const row = {
      id,
      reference: p.body.reference,
      status: 'pending',
      amount: p.amount.toString(),
      currency: p.body.currency,
      description: null,
      metadata: {},
      failure_code: null,
      failure_message: null,
      provider_reference: null,
      callback_url: null,
      livemode: false,
      created_at: now,
      updated_at: now,
      completed_at: null,
      expires_at: null,
      method: p.body.payment_method,
      customer: null,
    };
    const created = view(row);
    const succeeded = view({ ...row, status: 'succeeded', completed_at: now });
    const failed = view({
      ...row,
      status: 'failed',
      completed_at: now,
      failure_code: 'insufficient_funds',
      failure_message: 'The wallet does not cover the amount.',
    });
    const values = [
      id,
      p.body.reference,
      p.walletId,
      p.amount.toString(),
      p.body.currency,
      JSON.stringify(fingerprint),
      JSON.stringify(p.body.payment_method),
      typeid('evt').toString(),
      JSON.stringify({ object: created }),
      typeid('evt').toString(),
      JSON.stringify({ object: succeeded }),
      JSON.stringify({ object: failed }),
      typeid('ltx').toString(),
      typeid('wtx').toString(),
      typeid('wtx').toString(),
      now,
    ];
    for (const [i, v] of values.entries()) columns[i]!.push(v);
  }
  return [merchantId, ...columns];
}

/** The batch's statement: every payment answered from its own row (201), or 400 without one. */
async function runBatch(batch: Pending[]): Promise<void> {
  const result = await pool.query({ name: 'group-commit-batch', text: BATCH_STATEMENT, values: batchParameters(batch) });
  const byReference = new Map(result.rows.map((row) => [row.reference as string, row]));
  for (const p of batch) {
    const row = byReference.get(p.body.reference);
    p.resolve(row ? { status: 201, body: view(row) } : { status: 400, body: { error: 'no such wallet' } });
  }
}

const merging = mergingQueue({ batch: BATCH, flushes: FLUSHES, run: runBatch });

const app = Fastify({ logger: false });

app.get('/healthz', async () => ({ status: 'ok' }));

app.post('/payments', async (request, reply) => {
  const body = request.body as Body;
  const walletId = body?.payment_method?.wallet?.wallet_id;
  if (typeof walletId !== 'string' || typeof body.reference !== 'string' || !/^\d+\.\d\d$/.test(body.amount ?? '')) {
    return reply.code(400).send({ error: 'invalid request' });
  }
  const answer = await merging.submit({ body, walletId, amount: minor(body.amount) });
  return reply.code(answer.status).send(answer.body);
});

closeOnSignals(app, pool);

app.listen({ port, host: '127.0.0.1' }).catch((error: unknown) => {
  process.stderr.write(`group-commit-server: ${String(error)}\n`);
  process.exit(1);
});
