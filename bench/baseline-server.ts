// The naive baseline: a minimal Fastify + pg server with ONE route, POST /payments, doing the
// same work as Purse's wallet-payment create path (packages/server/src/charges/service.ts: the
// wallet lookup, the charge, the debit, the balanced posting, two events with their outbox
// fan-out) the naive way: one awaited, unnamed statement per round trip inside BEGIN … COMMIT,
// as Purse's own path was written before its single-statement rewrite. No auth, no validation
// beyond what the SQL needs, no logging. It runs against the bench's Purse database (same
// schema, migrated by Purse) with its own merchant and wallets created by Purse's fixtures.
// It stays naive on purpose: it is the yardstick of the "≥ 3× baseline" target.
//
// Env: DATABASE_URL, PORT, BASELINE_MERCHANT_ID, BASELINE_POOL_SIZE (default 16).
import Fastify from 'fastify';
import pg from 'pg';
import { typeid } from 'typeid-js';
import { closeOnSignals } from './lib/merging.ts';
import { type Body, hash, minor, view } from './lib/payment-view.ts';

const databaseUrl = process.env.DATABASE_URL;
const merchantId = process.env.BASELINE_MERCHANT_ID;
const port = Number(process.env.PORT ?? 18200);
if (!databaseUrl || !merchantId) {
  process.stderr.write('baseline-server: DATABASE_URL and BASELINE_MERCHANT_ID are required\n');
  process.exit(1);
}

const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.BASELINE_POOL_SIZE ?? 16) });
const LEASE_MS = 15_000;

// ---- The statements: the same rows as Purse's create path, one statement per step ----
const SELECT_WALLET = 'SELECT * FROM wallets WHERE id = $1 AND merchant_id = $2';
const INSERT_CHARGE = `
  INSERT INTO charges (id, kind, merchant_id, reference, request_fingerprint, status, amount, currency, method_type, method,
                       wallet_id, customer, description, metadata, callback_url, provider, livemode, created_at, updated_at,
                       expires_at, lease_until, next_check_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
  ON CONFLICT (merchant_id, kind, reference) DO NOTHING
  RETURNING *`;
const INSERT_EVENT = `
  WITH ev AS (
    INSERT INTO events (id, merchant_id, type, object_id, data, livemode, created_at)
    VALUES ($1, $2, $3, $4, $5::json, $6, $7)
    RETURNING id, merchant_id, created_at
  )
  INSERT INTO webhook_deliveries (id, event_id, merchant_id, endpoint_id, url, status, next_attempt_at, created_at, updated_at)
  SELECT 'del_' || replace(gen_random_uuid()::text, '-', ''), ev.id, ev.merchant_id, e.id, e.url, 'pending', ev.created_at, ev.created_at, ev.created_at
  FROM ev JOIN webhook_endpoints e
    ON e.merchant_id = ev.merchant_id AND e.status = 'enabled' AND (cardinality(e.events) = 0 OR $8 = ANY (e.events))
  UNION ALL
  SELECT 'del_' || replace(gen_random_uuid()::text, '-', ''), ev.id, ev.merchant_id, NULL, $9::text, 'pending', ev.created_at, ev.created_at, ev.created_at
  FROM ev WHERE $10::text IS NOT NULL`;
const DEBIT_WALLET = `
  UPDATE wallets SET balance = balance + $1::bigint, updated_at = $2
  WHERE id = $3 AND status = $4 AND balance >= $5
  RETURNING balance`;
const INSERT_LEDGER_TRANSACTION =
  'INSERT INTO ledger_transactions (id, merchant_id, source_type, source_id, created_at) VALUES ($1, $2, $3, $4, $5)';
const INSERT_LEDGER_ENTRIES = `
  INSERT INTO ledger_entries (id, transaction_id, account, currency, amount, balance_after, source_type, source_id, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9), ($10, $11, $12, $13, $14, $15, $16, $17, $18)`;
const FINISH_CHARGE = `
  UPDATE charges SET status = $1, failure_code = $2, failure_message = $3, provider_reference = coalesce($4, provider_reference),
         completed_at = $5, updated_at = $6, lease_until = $7, next_check_at = $8
  WHERE id = $9 AND status = $10
  RETURNING *`;

const event = (id: string, type: string, object: ReturnType<typeof view>, at: Date) => [
  id,
  merchantId,
  type,
  object.id,
  JSON.stringify({ object }),
  object.livemode,
  at,
  type,
  null,
  null,
];

const app = Fastify({ logger: false });

app.get('/healthz', async () => ({ status: 'ok' }));

app.post('/payments', async (request, reply) => {
  const body = request.body as Body;
  const walletId = body.payment_method.wallet.wallet_id;
  const amount = minor(body.amount);
  const now = new Date();
  const wallet = (await pool.query(SELECT_WALLET, [walletId, merchantId])).rows[0];
  if (!wallet || wallet.currency !== body.currency) return reply.code(400).send({ error: 'no such wallet' });
  const fingerprint = Object.fromEntries(
    Object.entries({
      amount: amount.toString(),
      currency: body.currency,
      payment_method: body.payment_method,
      description: null,
      metadata: {},
      callback_url: null,
      customer: null,
    }).map(([k, v]) => [k, hash(v)]),
  );
  const chargeId = typeid('pay').toString();
  const lease = new Date(now.getTime() + LEASE_MS);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const inserted = await client.query(INSERT_CHARGE, [
      chargeId,
      'payment',
      merchantId,
      body.reference,
      JSON.stringify(fingerprint),
      'pending',
      amount.toString(),
      body.currency,
      'wallet',
      JSON.stringify(body.payment_method),
      walletId,
      null,
      null,
      '{}',
      null,
      'purse',
      false,
      now,
      now,
      null,
      lease,
      lease,
    ]);
    if (inserted.rowCount === 0) {
      await client.query('ROLLBACK');
      return reply.code(409).send({ error: 'reference taken' });
    }
    await client.query(INSERT_EVENT, event(typeid('evt').toString(), 'payment.created', view(inserted.rows[0]), now));
    const debited = await client.query(DEBIT_WALLET, [(-amount).toString(), now, walletId, 'active', amount.toString()]);
    let status = 'succeeded';
    let failureCode: string | null = null;
    if (debited.rowCount === 0) {
      status = 'failed';
      failureCode = 'insufficient_funds';
    } else {
      const ltx = typeid('ltx').toString();
      await client.query(INSERT_LEDGER_TRANSACTION, [ltx, merchantId, 'payment', chargeId, now]);
      await client.query(INSERT_LEDGER_ENTRIES, [
        typeid('wtx').toString(),
        ltx,
        `wallet:${walletId}`,
        body.currency,
        (-amount).toString(),
        debited.rows[0].balance,
        'payment',
        chargeId,
        now,
        typeid('wtx').toString(),
        ltx,
        `merchant:${merchantId}:${body.currency}`,
        body.currency,
        amount.toString(),
        null,
        'payment',
        chargeId,
        now,
      ]);
    }
    const done = await client.query(FINISH_CHARGE, [
      status,
      failureCode,
      failureCode ? 'The wallet does not cover the amount.' : null,
      null,
      now,
      now,
      null,
      null,
      chargeId,
      'pending',
    ]);
    const object = view(done.rows[0]);
    await client.query(INSERT_EVENT, event(typeid('evt').toString(), `payment.${status}`, object, now));
    await client.query('COMMIT');
    return reply.code(201).send(object);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
});

closeOnSignals(app, pool);

app.listen({ port, host: '127.0.0.1' }).catch((error: unknown) => {
  process.stderr.write(`baseline-server: ${String(error)}\n`);
  process.exit(1);
});
