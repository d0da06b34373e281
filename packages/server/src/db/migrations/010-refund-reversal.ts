import { type Kysely, sql } from 'kysely';

/**
 * A ledger transaction's step gains 'reversal': a refund that the provider reported succeeded and
 * later failed (a card refund the issuer rejected days after) gives its money back to the
 * merchant's balance with one posting of step 'reversal' (provider account → merchant account),
 * written in the statement that keeps the refund's late outcome. The unique (source_type,
 * source_id, step) index already allows at most one per refund.
 *
 * charges.operation_key_generation: which idempotency key a card payment's capture or cancel
 * sends (charges/store/card-states.ts operationKey). Each claim of an operation takes a new one,
 * and so does an acquirer's 5xx answer, which the acquirer keeps under its key and would replay
 * to every retry: the next attempt, after a read confirms the acquirer never acted, goes out
 * under a fresh key. Bounded, so a broken acquirer cannot make it grow without end.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_step_check;
    ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_step_check CHECK (step IN ('hold', 'final', 'reversal'));
    ALTER TABLE charges ADD COLUMN operation_key_generation smallint NOT NULL DEFAULT 0
      CONSTRAINT charges_operation_key_generation_range CHECK (operation_key_generation BETWEEN 0 AND 1000);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE charges DROP COLUMN operation_key_generation;
    DELETE FROM ledger_entries WHERE transaction_id IN (SELECT id FROM ledger_transactions WHERE step = 'reversal');
    DELETE FROM ledger_transactions WHERE step = 'reversal';
    ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_step_check;
    ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_step_check CHECK (step IN ('hold', 'final'));
  `.execute(db);
}
