import { type Kysely, sql } from 'kysely';

/**
 * Wallets, charges (payments and top-ups share one table, told apart by `kind`), the
 * double-entry ledger, the event outbox, and the sandbox provider's own records.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE wallets (
      id text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants (id),
      currency text NOT NULL,
      reference text,
      request_fingerprint jsonb NOT NULL,
      holder jsonb NOT NULL,
      metadata jsonb NOT NULL,
      status text NOT NULL CHECK (status IN ('active', 'inactive')),
      -- Cached balance, written only by the ledger in the same transaction as its entries.
      balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
      livemode boolean NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX wallets_merchant_reference ON wallets (merchant_id, reference) WHERE reference IS NOT NULL;
    CREATE INDEX wallets_merchant_id ON wallets (merchant_id, id);

    CREATE TABLE charges (
      id text PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('payment', 'topup')),
      merchant_id text NOT NULL REFERENCES merchants (id),
      reference text NOT NULL,
      request_fingerprint jsonb NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      amount bigint NOT NULL CHECK (amount > 0),
      currency text NOT NULL,
      method_type text NOT NULL CHECK (method_type IN ('wallet', 'mobile_money', 'card')),
      method jsonb NOT NULL,
      wallet_id text REFERENCES wallets (id),
      customer jsonb,
      description text,
      metadata jsonb NOT NULL,
      callback_url text,
      failure_code text,
      failure_message text,
      provider text NOT NULL,
      provider_reference text,
      provider_state text NOT NULL DEFAULT 'not_started' CHECK (provider_state IN ('not_started', 'initiated', 'none')),
      late_outcome jsonb,
      livemode boolean NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      completed_at timestamptz,
      expires_at timestamptz,
      next_check_at timestamptz,
      lease_until timestamptz,
      attempts integer NOT NULL DEFAULT 0,
      CHECK ((status = 'pending') = (completed_at IS NULL))
    );
    CREATE UNIQUE INDEX charges_merchant_kind_reference ON charges (merchant_id, kind, reference);
    CREATE INDEX charges_merchant_kind_id ON charges (merchant_id, kind, id);
    CREATE INDEX charges_due ON charges (next_check_at) WHERE status = 'pending';

    CREATE TABLE ledger_transactions (
      id text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants (id),
      source_type text NOT NULL,
      source_id text NOT NULL,
      created_at timestamptz NOT NULL
    );
    -- One posting per source: a second settlement of the same charge cannot post twice.
    CREATE UNIQUE INDEX ledger_transactions_source ON ledger_transactions (source_type, source_id);

    CREATE TABLE ledger_entries (
      id text PRIMARY KEY,
      transaction_id text NOT NULL REFERENCES ledger_transactions (id),
      account text NOT NULL,
      currency text NOT NULL,
      amount bigint NOT NULL CHECK (amount <> 0),
      balance_after bigint,
      source_type text NOT NULL,
      source_id text NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX ledger_entries_account_id ON ledger_entries (account, id);
    CREATE INDEX ledger_entries_transaction ON ledger_entries (transaction_id);

    CREATE TABLE events (
      id text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants (id),
      type text NOT NULL,
      object_id text NOT NULL,
      data jsonb NOT NULL,
      livemode boolean NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX events_merchant_id ON events (merchant_id, id);
    CREATE INDEX events_object ON events (object_id);

    -- The sandbox provider's own books: what "the provider" knows, keyed by our idempotency key.
    CREATE TABLE sandbox_provider_charges (
      provider_reference text PRIMARY KEY,
      idempotency_key text NOT NULL UNIQUE,
      method_type text NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('pending', 'succeeded', 'failed')),
      failure_code text,
      complete_at timestamptz,
      created_at timestamptz NOT NULL
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE sandbox_provider_charges; DROP TABLE events; DROP TABLE ledger_entries;
    DROP TABLE ledger_transactions; DROP TABLE charges; DROP TABLE wallets;
  `.execute(db);
}
