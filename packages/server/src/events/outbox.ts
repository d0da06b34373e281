import { type RawBuilder, sql } from 'kysely';

/**
 * The outbox fan-out as a CTE body, for statements that insert events in a CTE named `evs`
 * (columns id, type): one delivery per enabled endpoint of the merchant subscribed to the
 * type, plus one to the object's callback_url. Used by every statement that writes events, so
 * an event and its deliveries always commit together.
 */
export function deliveriesFromEvents(merchantId: string, callbackUrl: string | null, now: Date): RawBuilder<unknown> {
  return sql`
    INSERT INTO webhook_deliveries (id, event_id, merchant_id, endpoint_id, url, status, next_attempt_at, created_at, updated_at)
    SELECT 'del_' || replace(gen_random_uuid()::text, '-', ''), ev.id, ${merchantId}, e.id, e.url, 'pending',
           ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
    FROM evs ev JOIN webhook_endpoints e
      ON e.merchant_id = ${merchantId} AND e.status = 'enabled' AND (cardinality(e.events) = 0 OR ev.type = ANY (e.events))
    UNION ALL
    SELECT 'del_' || replace(gen_random_uuid()::text, '-', ''), ev.id, ${merchantId}, NULL, ${callbackUrl}::text, 'pending',
           ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
    FROM evs ev WHERE ${callbackUrl}::text IS NOT NULL`;
}
