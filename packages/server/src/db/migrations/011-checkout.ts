import { type Kysely, sql } from 'kysely';

/**
 * Hosted checkout and payment links.
 *
 * - A checkout session is paid by payments of its own (`reference` of the session, `/attempt-N`):
 *   attempt N is the session's only live attempt, and attempt N+1 can start only once N failed,
 *   so a session never holds two payments that could both succeed. `failed_attempts` counts the
 *   failed ones (at most 5, then the session expires); `attempt_lease_until` marks an attempt
 *   being created, which keeps `expire` from racing a payment still on its way.
 * - `status` moves once from open to complete or expired, by a conditional update: the one that
 *   wins writes the event. `payment_id` is the payment that completed it.
 * - The page's URL carries a token derived from the id with the service key; only its keyed hash
 *   is stored, to find the session from the URL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE payment_links (
      id text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants (id),
      token_hash text NOT NULL UNIQUE,
      amount bigint CHECK (amount > 0),
      currency text NOT NULL,
      description text NOT NULL,
      payment_method_types text[] NOT NULL,
      after_completion_url text,
      active boolean NOT NULL,
      livemode boolean NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX payment_links_merchant ON payment_links (merchant_id, id);

    CREATE TABLE checkout_sessions (
      id text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants (id),
      reference text NOT NULL,
      request_fingerprint jsonb NOT NULL,
      token_hash text NOT NULL UNIQUE,
      status text NOT NULL CHECK (status IN ('open', 'complete', 'expired')),
      amount bigint NOT NULL CHECK (amount > 0),
      currency text NOT NULL,
      payment_method_types text[] NOT NULL,
      capture_method text NOT NULL CHECK (capture_method IN ('automatic', 'manual')),
      success_url text,
      cancel_url text,
      customer jsonb,
      description text,
      metadata jsonb NOT NULL,
      payment_link_id text REFERENCES payment_links (id),
      payment_id text,
      failed_attempts integer NOT NULL DEFAULT 0 CHECK (failed_attempts BETWEEN 0 AND 5),
      attempt_lease_until timestamptz,
      livemode boolean NOT NULL,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      completed_at timestamptz,
      CONSTRAINT checkout_sessions_reference UNIQUE (merchant_id, reference),
      CONSTRAINT checkout_sessions_complete_has_payment CHECK ((status = 'complete') = (payment_id IS NOT NULL)),
      CONSTRAINT checkout_sessions_final_completed CHECK ((status <> 'open') = (completed_at IS NOT NULL))
    );
    CREATE INDEX checkout_sessions_merchant ON checkout_sessions (merchant_id, id);
    CREATE INDEX checkout_sessions_open ON checkout_sessions (expires_at) WHERE status = 'open';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE checkout_sessions; DROP TABLE payment_links;`.execute(db);
}
