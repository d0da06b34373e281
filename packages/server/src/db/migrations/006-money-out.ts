import { type Kysely, sql } from 'kysely';

/**
 * Money out: refunds and payouts (one table, `outflows`, told apart by `kind`, as charges are),
 * the merchant's balance rows that decide them, and what a payment has refunded.
 *
 * merchant_balances holds, per merchant and currency, the numbers a conditional statement
 * needs to refuse an outflow the funds do not cover:
 * - `credited`: what payments brought in. Payments add to one of shards 1–15 at random, so
 *   concurrent payments of one merchant rarely queue on one row; credits only ever grow.
 * - `debited` (shard 0 only): refunds and payouts that are pending or succeeded.
 * - `reserved` (shard 0 only): the pending part of `debited`.
 * available = sum(credited) − debited. An outflow locks shard 0 and reads the credits without a
 * lock: a credit committed meanwhile is missed, which only ever understates what is available.
 * Shard 0 is never credited by a payment, so a payment (wallet → shard k) and an outflow
 * (shard 0 → wallet) never lock each other's rows in opposite orders.
 *
 * Existing funds are carried over: each merchant account's entries sum into shard 0's credited.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE merchant_balances (
      merchant_id text NOT NULL REFERENCES merchants (id),
      currency text NOT NULL,
      shard smallint NOT NULL CHECK (shard >= 0 AND shard < 16),
      credited bigint NOT NULL DEFAULT 0 CHECK (credited >= 0),
      debited bigint NOT NULL DEFAULT 0 CHECK (debited >= 0),
      reserved bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0 AND reserved <= debited),
      PRIMARY KEY (merchant_id, currency, shard),
      CHECK (shard = 0 OR (debited = 0 AND reserved = 0))
    );
    INSERT INTO merchant_balances (merchant_id, currency, shard, credited)
      SELECT split_part(account, ':', 2), currency, 0, sum(amount) FROM ledger_entries
      WHERE account LIKE 'merchant:%' GROUP BY account, currency HAVING sum(amount) > 0;

    -- An outflow through a provider posts twice: the hold when it is created, the final posting
    -- when the provider answers. Each at most once per source, as before.
    ALTER TABLE ledger_transactions ADD COLUMN step text NOT NULL DEFAULT 'final' CHECK (step IN ('hold', 'final'));
    DROP INDEX ledger_transactions_source;
    CREATE UNIQUE INDEX ledger_transactions_source ON ledger_transactions (source_type, source_id, step);

    -- The database caps refunds: a refund adds to amount_refunded in a conditional UPDATE, and
    -- the CHECK is the backstop against a bug.
    ALTER TABLE charges ADD COLUMN amount_refunded bigint NOT NULL DEFAULT 0
      CHECK (amount_refunded >= 0 AND amount_refunded <= amount);

    CREATE TABLE outflows (
      id text PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('refund', 'payout')),
      merchant_id text NOT NULL REFERENCES merchants (id),
      reference text NOT NULL,
      request_fingerprint jsonb NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      amount bigint NOT NULL CHECK (amount > 0),
      currency text NOT NULL,
      payment_id text REFERENCES charges (id),
      reason text,
      destination_type text NOT NULL CHECK (destination_type IN ('wallet', 'mobile_money', 'card')),
      destination jsonb NOT NULL,
      wallet_id text REFERENCES wallets (id),
      description text,
      metadata jsonb NOT NULL,
      callback_url text,
      failure_code text,
      failure_message text,
      provider text NOT NULL,
      provider_reference text,
      provider_state text NOT NULL DEFAULT 'not_started' CHECK (provider_state IN ('not_started', 'initiated')),
      late_outcome jsonb,
      livemode boolean NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      completed_at timestamptz,
      next_check_at timestamptz,
      lease_until timestamptz,
      attempts integer NOT NULL DEFAULT 0,
      CONSTRAINT outflows_merchant_kind_reference UNIQUE (merchant_id, kind, reference),
      CHECK ((kind = 'refund') = (payment_id IS NOT NULL)),
      CHECK ((status = 'pending') = (completed_at IS NULL)),
      CHECK ((status = 'failed') = (failure_code IS NOT NULL)),
      CHECK ((destination_type = 'wallet') = (wallet_id IS NOT NULL))
    );
    CREATE INDEX outflows_merchant_kind_id ON outflows (merchant_id, kind, id);
    CREATE INDEX outflows_payment ON outflows (payment_id, id) WHERE payment_id IS NOT NULL;
    CREATE INDEX outflows_due ON outflows (next_check_at) WHERE status = 'pending';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE outflows; ALTER TABLE charges DROP COLUMN amount_refunded; DROP TABLE merchant_balances;
    DROP INDEX ledger_transactions_source; ALTER TABLE ledger_transactions DROP COLUMN step;
    CREATE UNIQUE INDEX ledger_transactions_source ON ledger_transactions (source_type, source_id);
  `.execute(db);
}
