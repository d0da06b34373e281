import { type Kysely, sql } from 'kysely';
import { typeIdSql } from '../../shared/ids.ts';

/**
 * People, keys and the audit log.
 *
 * API keys: a merchant has several client credentials, each named and scoped. The credential a
 * merchant had before becomes its first key (same client_id, same secret hash, scope `all`), so
 * nothing an integration holds changes; merchants.client_id stays as the id of that first key
 * (the operator rotates it), and the secret hash lives only in api_keys from now on.
 * - credential_version is bumped by a roll and a revocation; a token carries the version it was
 *   issued under, so a bump revokes it. During a roll's overlap the previous secret still issues
 *   tokens, at version - 1, which stay valid until previous_secret_expires_at.
 * - access_tokens.api_key_id: which key issued the token (its scopes are the key's).
 *
 * Audit log: audit_events, append-only, a hash chain per merchant (audit/chain.ts) whose head
 * (last seq and hash) is audit_heads; every merchant has a head from its creation (a trigger on
 * merchants inserts it). A trigger
 * refuses UPDATE, DELETE and TRUNCATE of audit rows for every role; only a superuser can get
 * past it (session_replication_role, or disabling the trigger), and `purse audit verify` finds
 * what was changed, deleted or inserted then.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants (id),
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
      client_id text NOT NULL UNIQUE,
      secret_hash text NOT NULL,
      previous_secret_hash text,
      previous_secret_expires_at timestamptz,
      scopes text[] NOT NULL CHECK (cardinality(scopes) > 0),
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
      credential_version integer NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      revoked_at timestamptz,
      CHECK ((status = 'revoked') = (revoked_at IS NOT NULL)),
      CHECK ((previous_secret_hash IS NULL) = (previous_secret_expires_at IS NULL))
    );
    CREATE INDEX api_keys_merchant ON api_keys (merchant_id, id);
  `.execute(db);
  await sql`
    INSERT INTO api_keys (id, merchant_id, name, client_id, secret_hash, scopes, created_at, updated_at)
    SELECT ${typeIdSql('apiKey', 'm.created_at')}, m.id, 'Default key', m.client_id, m.client_secret_hash,
           ARRAY['all'], m.created_at, m.updated_at
    FROM merchants m
  `.execute(db);
  await sql`
    ALTER TABLE access_tokens ADD COLUMN api_key_id text REFERENCES api_keys (id), ADD COLUMN key_version integer;
    UPDATE access_tokens t SET api_key_id = k.id, key_version = k.credential_version
      FROM api_keys k WHERE k.client_id = (SELECT client_id FROM merchants WHERE id = t.merchant_id);
    ALTER TABLE access_tokens ALTER COLUMN api_key_id SET NOT NULL, ALTER COLUMN key_version SET NOT NULL;
    CREATE INDEX access_tokens_api_key ON access_tokens (api_key_id);
    ALTER TABLE merchants DROP COLUMN client_secret_hash;
  `.execute(db);
  await auditLog(db);
}

async function auditLog(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE audit_heads (
      merchant_id text PRIMARY KEY REFERENCES merchants (id),
      seq bigint NOT NULL DEFAULT 0,
      hash text NOT NULL DEFAULT ''
    );
    INSERT INTO audit_heads (merchant_id) SELECT id FROM merchants;
    CREATE TABLE audit_events (
      id text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants (id),
      seq bigint NOT NULL,
      action text NOT NULL,
      actor_type text NOT NULL CHECK (actor_type IN ('user', 'api_key', 'operator')),
      actor_id text,
      actor_email text,
      target_type text NOT NULL,
      target_id text NOT NULL,
      ip_address text,
      user_agent text,
      request_id text,
      changes jsonb,
      created_at timestamptz NOT NULL,
      prev_hash text NOT NULL,
      hash text NOT NULL,
      UNIQUE (merchant_id, seq)
    );
    CREATE INDEX audit_events_merchant ON audit_events (merchant_id, id);
    -- Every merchant has its chain head from its creation, whoever inserts it: an append to a
    -- merchant without one would find no head to lock and write nothing.
    CREATE FUNCTION purse_audit_head() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO audit_heads (merchant_id) VALUES (NEW.id);
      RETURN NEW;
    END
    $$;
    CREATE TRIGGER merchants_audit_head AFTER INSERT ON merchants FOR EACH ROW EXECUTE FUNCTION purse_audit_head();
    CREATE FUNCTION purse_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
    END
    $$;
    CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
      FOR EACH ROW EXECUTE FUNCTION purse_audit_append_only();
    CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
      FOR EACH STATEMENT EXECUTE FUNCTION purse_audit_append_only();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE audit_events;
    DROP FUNCTION purse_audit_append_only();
    DROP TRIGGER merchants_audit_head ON merchants;
    DROP FUNCTION purse_audit_head();
    DROP TABLE audit_heads;
    ALTER TABLE merchants ADD COLUMN client_secret_hash text;
    UPDATE merchants m SET client_secret_hash = k.secret_hash FROM api_keys k WHERE k.client_id = m.client_id;
    ALTER TABLE access_tokens DROP COLUMN api_key_id, DROP COLUMN key_version;
    DROP TABLE api_keys;
  `.execute(db);
}
