import { type Kysely, sql } from 'kysely';

/**
 * Dashboard users, their invitations, recovery codes and sessions (docs/users.md).
 *
 * - users: one merchant each; an email belongs to at most one user that is not removed, across
 *   every merchant (sign-in is by email), hence the unique index on lower(email). A removed user
 *   keeps its row (the audit log names it) and frees its email.
 * - totp_last_step: the last RFC 6238 time step accepted for this user; a code is accepted only
 *   by a conditional update that raises it, so a code is never used twice (nor an older one).
 * - invitations and recovery codes are kept as keyed hashes; each is used once, by a conditional
 *   update of used_at.
 * - dashboard_sessions.id is the keyed hash of the cookie's value (the value itself is never
 *   stored). A new id is written at each step (sign-in, second factor, TOTP confirmation, password
 *   change); access tokens bound to the session follow it (ON UPDATE CASCADE).
 * - access_tokens: a token is issued by an API key (client credentials) or by a dashboard session,
 *   exactly one of the two.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE users (
      id text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants (id),
      email text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'support', 'viewer')),
      status text NOT NULL DEFAULT 'invited' CHECK (status IN ('invited', 'active', 'removed')),
      password_hash text,
      totp_secret_encrypted text,
      totp_pending_secret_encrypted text,
      totp_enabled_at timestamptz,
      totp_last_step bigint,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      removed_at timestamptz,
      CHECK ((status = 'removed') = (removed_at IS NOT NULL)),
      CHECK (status <> 'active' OR password_hash IS NOT NULL),
      CHECK ((totp_secret_encrypted IS NULL) = (totp_enabled_at IS NULL))
    );
    CREATE UNIQUE INDEX users_email ON users (lower(email)) WHERE status <> 'removed';
    CREATE INDEX users_merchant ON users (merchant_id, id);
    CREATE TABLE invitations (
      token_hash text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users (id),
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    );
    CREATE INDEX invitations_user ON invitations (user_id);
    CREATE TABLE recovery_codes (
      user_id text NOT NULL REFERENCES users (id),
      code_hash text NOT NULL,
      created_at timestamptz NOT NULL,
      used_at timestamptz,
      PRIMARY KEY (user_id, code_hash)
    );
    CREATE TABLE dashboard_sessions (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users (id),
      merchant_id text NOT NULL REFERENCES merchants (id),
      state text NOT NULL CHECK (state IN ('active', 'second_factor_required', 'enrolment_required')),
      created_at timestamptz NOT NULL,
      last_seen_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz
    );
    CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id) WHERE revoked_at IS NULL;
    CREATE INDEX dashboard_sessions_expires ON dashboard_sessions (expires_at);
    ALTER TABLE access_tokens
      ADD COLUMN session_id text REFERENCES dashboard_sessions (id) ON UPDATE CASCADE ON DELETE CASCADE,
      ALTER COLUMN api_key_id DROP NOT NULL,
      ALTER COLUMN key_version DROP NOT NULL,
      ADD CONSTRAINT access_tokens_one_issuer CHECK ((api_key_id IS NULL) <> (session_id IS NULL)),
      ADD CONSTRAINT access_tokens_key_version CHECK ((api_key_id IS NULL) = (key_version IS NULL));
    CREATE INDEX access_tokens_session ON access_tokens (session_id) WHERE session_id IS NOT NULL;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DELETE FROM access_tokens WHERE session_id IS NOT NULL;
    ALTER TABLE access_tokens DROP CONSTRAINT access_tokens_key_version, DROP CONSTRAINT access_tokens_one_issuer, DROP COLUMN session_id;
    ALTER TABLE access_tokens ALTER COLUMN api_key_id SET NOT NULL, ALTER COLUMN key_version SET NOT NULL;
    DROP TABLE dashboard_sessions;
    DROP TABLE recovery_codes;
    DROP TABLE invitations;
    DROP TABLE users;
  `.execute(db);
}
