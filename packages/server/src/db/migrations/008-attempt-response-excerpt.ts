import { type Kysely, sql } from 'kysely';

/**
 * webhook_attempts.response_excerpt: the start of what a merchant's endpoint answered when it did
 * not answer 2xx, so the merchant can see why a delivery failed ("invalid signature", a stack
 * trace's first line). At most 200 characters, control characters already replaced by the
 * sender (webhooks/sender.ts responseExcerpt); null for delivered attempts, for attempts that got
 * no answer, and for every attempt made before this migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE webhook_attempts ADD COLUMN response_excerpt text
      CONSTRAINT webhook_attempts_response_excerpt_length CHECK (char_length(response_excerpt) <= 200);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_attempts DROP COLUMN response_excerpt`.execute(db);
}
