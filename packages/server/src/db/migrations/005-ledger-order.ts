import { type Kysely, sql } from 'kysely';

/**
 * ledger_entries.seq: the order in which entries were applied. A wallet line draws its value in
 * the wallet UPDATE's RETURNING, while that statement holds the wallet's row lock, so one
 * wallet's lines sort by seq exactly as their balance moves happened (ids and created_at are
 * taken before the statement and do not). Statements list wallet lines by seq.
 *
 * CACHE 1 matters: a session-local cache would hand out values out of time order.
 * Existing rows are numbered in (created_at, id) order, the order they were listed in so far.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE SEQUENCE ledger_entry_seq AS bigint CACHE 1;
    ALTER TABLE ledger_entries ADD COLUMN seq bigint;
    UPDATE ledger_entries e SET seq = o.n
      FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM ledger_entries) o
      WHERE e.id = o.id;
    SELECT setval('ledger_entry_seq', coalesce((SELECT max(seq) FROM ledger_entries), 0) + 1, false);
    ALTER TABLE ledger_entries ALTER COLUMN seq SET DEFAULT nextval('ledger_entry_seq'), ALTER COLUMN seq SET NOT NULL;
    ALTER SEQUENCE ledger_entry_seq OWNED BY ledger_entries.seq;
    -- Replaces (account, id): wallet statements are read by seq now, and account sums need only
    -- the account prefix, so a write keeps the same number of indexes to maintain.
    DROP INDEX ledger_entries_account_id;
    CREATE UNIQUE INDEX ledger_entries_account_seq ON ledger_entries (account, seq);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX ledger_entries_account_seq;
    CREATE INDEX ledger_entries_account_id ON ledger_entries (account, id);
    ALTER TABLE ledger_entries DROP COLUMN seq;
  `.execute(db);
}
