import { type Kysely, sql } from 'kysely';

/**
 * Transfers between two wallets of one merchant. A transfer is final when it is written
 * (succeeded or failed in the statement that moves the money), so it has no pending state,
 * no lease and no provider columns.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE transfers (
      id text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants (id),
      reference text NOT NULL,
      request_fingerprint jsonb NOT NULL,
      status text NOT NULL CHECK (status IN ('succeeded', 'failed')),
      amount bigint NOT NULL CHECK (amount > 0),
      currency text NOT NULL,
      source_wallet_id text NOT NULL REFERENCES wallets (id),
      destination_wallet_id text NOT NULL REFERENCES wallets (id),
      description text,
      metadata jsonb NOT NULL,
      failure_code text,
      failure_message text,
      livemode boolean NOT NULL,
      created_at timestamptz NOT NULL,
      -- The unique index decides a reference (docs/api.md §7), never a check-then-insert.
      CONSTRAINT transfers_merchant_reference UNIQUE (merchant_id, reference),
      CHECK (source_wallet_id <> destination_wallet_id),
      CHECK ((status = 'failed') = (failure_code IS NOT NULL))
    );
    CREATE INDEX transfers_merchant_id ON transfers (merchant_id, id);
    -- The wallet_id filter of the list matches either side.
    CREATE INDEX transfers_source_wallet ON transfers (source_wallet_id, id);
    CREATE INDEX transfers_destination_wallet ON transfers (destination_wallet_id, id);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE transfers`.execute(db);
}
