import { type Kysely, sql } from 'kysely';

/**
 * Cards through an acquirer: 3-D Secure, manual capture and cancel.
 *
 * - A payment may wait on the payer (`requires_action`) or on the merchant (`requires_capture`)
 *   before it is final; `canceled` is final, like succeeded and failed. `completed_at` is set
 *   exactly when the status is final.
 * - `amount_received` is what was captured (NULL: the whole amount, once succeeded): only it
 *   reaches the merchant's balance and only it can be refunded, so the refund cap's CHECK reads it.
 * - `pending_operation` is a capture or cancel the merchant asked for, stored before the acquirer
 *   is called (with `operation_amount` for a capture): the conditional update that sets it is what
 *   lets exactly one of concurrent capture and cancel requests win, and what a retry or the
 *   worker replays with the same idempotency key.
 * - `next_action` is the payment's public next action (a Purse URL); `provider_action_url` is the
 *   acquirer's challenge page that URL sends the browser to.
 * - merchants.raw_card_data: whether a live merchant may post card numbers through the API.
 * - The sandbox's books learn the same states.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- The checks replaced below, found by what they say (their generated names differ between
    -- PostgreSQL and the embedded database).
    DO $$
    DECLARE c record;
    BEGIN
      FOR c IN SELECT conrelid::regclass::text AS tbl, conname FROM pg_constraint
        WHERE contype = 'c' AND (
          (conrelid = 'charges'::regclass AND (pg_get_constraintdef(oid) LIKE '%amount_refunded%'
            OR pg_get_constraintdef(oid) LIKE '%completed_at%'
            OR (pg_get_constraintdef(oid) LIKE '%status%' AND pg_get_constraintdef(oid) LIKE '%succeeded%')))
          OR (conrelid = 'sandbox_provider_charges'::regclass AND pg_get_constraintdef(oid) LIKE '%outcome%'))
      LOOP
        EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', c.tbl, c.conname);
      END LOOP;
    END
    $$;
    ALTER TABLE charges
      ADD COLUMN capture_method text NOT NULL DEFAULT 'automatic' CHECK (capture_method IN ('automatic', 'manual')),
      ADD COLUMN amount_capturable bigint CHECK (amount_capturable > 0 AND amount_capturable <= amount),
      ADD COLUMN amount_received bigint CHECK (amount_received > 0 AND amount_received <= amount),
      ADD COLUMN capture_before timestamptz,
      ADD COLUMN next_action jsonb,
      ADD COLUMN provider_action_url text,
      ADD COLUMN return_url text,
      ADD COLUMN three_d_secure text,
      ADD COLUMN cancellation_reason text,
      ADD COLUMN pending_operation text CHECK (pending_operation IN ('capture', 'cancel')),
      ADD COLUMN operation_amount bigint CHECK (operation_amount > 0),
      ADD CONSTRAINT charges_status_check
        CHECK (status IN ('pending', 'requires_action', 'requires_capture', 'succeeded', 'failed', 'canceled')),
      ADD CONSTRAINT charges_final_completed
        CHECK ((status IN ('succeeded', 'failed', 'canceled')) = (completed_at IS NOT NULL)),
      ADD CONSTRAINT charges_amount_refunded_check
        CHECK (amount_refunded >= 0 AND amount_refunded <= coalesce(amount_received, amount));
    DROP INDEX charges_due;
    CREATE INDEX charges_due ON charges (next_check_at) WHERE completed_at IS NULL;

    ALTER TABLE merchants ADD COLUMN raw_card_data boolean NOT NULL DEFAULT false;

    ALTER TABLE sandbox_provider_charges
      ADD CONSTRAINT sandbox_provider_charges_outcome_check
        CHECK (outcome IN ('pending', 'requires_action', 'requires_capture', 'succeeded', 'failed', 'canceled')),
      ADD COLUMN amount bigint,
      ADD COLUMN amount_received bigint,
      ADD COLUMN capture_method text,
      ADD COLUMN challenge text,
      ADD COLUMN return_url text;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE sandbox_provider_charges DROP CONSTRAINT sandbox_provider_charges_outcome_check;
    ALTER TABLE sandbox_provider_charges DROP COLUMN amount, DROP COLUMN amount_received, DROP COLUMN capture_method,
      DROP COLUMN challenge, DROP COLUMN return_url,
      ADD CONSTRAINT sandbox_provider_charges_outcome_check CHECK (outcome IN ('pending', 'succeeded', 'failed'));
    ALTER TABLE merchants DROP COLUMN raw_card_data;
    DROP INDEX charges_due;
    CREATE INDEX charges_due ON charges (next_check_at) WHERE status = 'pending';
    ALTER TABLE charges DROP CONSTRAINT charges_status_check, DROP CONSTRAINT charges_final_completed,
      DROP CONSTRAINT charges_amount_refunded_check,
      DROP COLUMN capture_method, DROP COLUMN amount_capturable, DROP COLUMN amount_received, DROP COLUMN capture_before,
      DROP COLUMN next_action, DROP COLUMN provider_action_url, DROP COLUMN return_url, DROP COLUMN three_d_secure,
      DROP COLUMN cancellation_reason, DROP COLUMN pending_operation, DROP COLUMN operation_amount,
      ADD CONSTRAINT charges_status_check CHECK (status IN ('pending', 'succeeded', 'failed')),
      ADD CONSTRAINT charges_check CHECK ((status = 'pending') = (completed_at IS NULL)),
      ADD CONSTRAINT charges_amount_refunded_check CHECK (amount_refunded >= 0 AND amount_refunded <= amount);
  `.execute(db);
}
