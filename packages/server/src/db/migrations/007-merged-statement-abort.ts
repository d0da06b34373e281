import { type Kysely, sql } from 'kysely';

/**
 * purse_abort(message): raises an error with `message` (SQLSTATE P0001). A merged statement
 * (db/group-commit.ts MergedWrite) calls it when its items cannot all be decided as if they had
 * run one after the other (outflows whose sum the funds do not cover): the statement fails and
 * changes nothing, the batch is rolled back, and each item runs alone. VOLATILE, so the planner
 * never evaluates it ahead of the CASE branch that calls it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION purse_abort(message text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      RAISE EXCEPTION '%', message USING ERRCODE = 'P0001';
    END
    $$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION purse_abort(text)`.execute(db);
}
