import { type Kysely, sql } from 'kysely';

/**
 * Webhook endpoints, the delivery outbox and its attempts, and the merchant's default signing
 * secret (for callback_url). Signing secrets must be usable for HMAC, so they are stored
 * encrypted (AES-256-GCM with a key derived from PURSE_SECRET_KEY), never in clear.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE merchants ADD COLUMN webhook_secret_enc text;
    ALTER TABLE merchants ADD COLUMN previous_webhook_secret_enc text;
    ALTER TABLE merchants ADD COLUMN previous_webhook_secret_expires_at timestamptz;

    -- json, not jsonb: the bytes of an event keep the key order of the API's objects.
    ALTER TABLE events ALTER COLUMN data TYPE json USING data::json;
    CREATE INDEX events_merchant_type_id ON events (merchant_id, type, id);

    CREATE TABLE webhook_endpoints (
      id text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants (id),
      url text NOT NULL,
      events text[] NOT NULL,
      description text,
      status text NOT NULL CHECK (status IN ('enabled', 'disabled', 'deleted')),
      secret_enc text NOT NULL,
      previous_secret_enc text,
      previous_secret_expires_at timestamptz,
      livemode boolean NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX webhook_endpoints_merchant ON webhook_endpoints (merchant_id, id);

    CREATE TABLE webhook_deliveries (
      id text PRIMARY KEY,
      event_id text NOT NULL REFERENCES events (id),
      merchant_id text NOT NULL REFERENCES merchants (id),
      -- null: the object's callback_url, signed with the merchant's default secret.
      endpoint_id text REFERENCES webhook_endpoints (id),
      url text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      lease_until timestamptz,
      last_status_code integer,
      last_error text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      delivered_at timestamptz
    );
    CREATE UNIQUE INDEX webhook_deliveries_event_target ON webhook_deliveries (event_id, coalesce(endpoint_id, ''), url);
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
    CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

    CREATE TABLE webhook_attempts (
      id bigserial PRIMARY KEY,
      delivery_id text NOT NULL REFERENCES webhook_deliveries (id),
      attempted_at timestamptz NOT NULL,
      status_code integer,
      latency_ms integer NOT NULL,
      error text
    );
    CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE webhook_attempts; DROP TABLE webhook_deliveries; DROP TABLE webhook_endpoints;
    DROP INDEX events_merchant_type_id; ALTER TABLE events ALTER COLUMN data TYPE jsonb USING data::jsonb;
    ALTER TABLE merchants DROP COLUMN webhook_secret_enc, DROP COLUMN previous_webhook_secret_enc, DROP COLUMN previous_webhook_secret_expires_at;
  `.execute(db);
}
