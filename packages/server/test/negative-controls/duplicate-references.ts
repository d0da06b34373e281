// A schema broken on purpose for the fault suite's `crash-negative-control` (test/faults/crash.ts):
// the charges' unique reference index no longer decides. A trigger, installed by the test after
// the first server has migrated the database, gives a charge whose (merchant, kind, reference)
// is already taken a reference of its own before the index sees it, so a retried or replayed
// request makes a second object, exactly as without the index. The server runs unchanged
// production code; nothing in src/ knows of this.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/db/schema.ts';

export async function breakReferenceIndex(db: Kysely<Database>): Promise<void> {
  await sql`
    CREATE FUNCTION purse_test_duplicate_reference() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- WRONG ON PURPOSE: a check-then-act where the unique index should decide.
      IF EXISTS (SELECT 1 FROM charges WHERE merchant_id = NEW.merchant_id AND kind = NEW.kind AND reference = NEW.reference) THEN
        NEW.reference := NEW.reference || ' (duplicate ' || NEW.id || ')';
      END IF;
      RETURN NEW;
    END $$`.execute(db);
  await sql`CREATE TRIGGER purse_test_duplicate_reference BEFORE INSERT ON charges
    FOR EACH ROW EXECUTE FUNCTION purse_test_duplicate_reference()`.execute(db);
}
