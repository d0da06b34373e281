import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE settings (
      key text PRIMARY KEY,
      value text NOT NULL
    );
    CREATE TABLE merchants (
      id text PRIMARY KEY,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      status text NOT NULL CHECK (status IN ('active', 'disabled')),
      livemode boolean NOT NULL DEFAULT false,
      client_id text NOT NULL UNIQUE,
      client_secret_hash text NOT NULL,
      credential_version integer NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE access_tokens (
      token_hash text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants (id),
      credential_version integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX access_tokens_expires_at ON access_tokens (expires_at);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE access_tokens; DROP TABLE merchants; DROP TABLE settings;`.execute(db);
}
