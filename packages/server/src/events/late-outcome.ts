import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Db } from '../db/db.ts';
import { deliveriesFor } from '../webhooks/store.ts';
import { type EventType, insertEvents } from './store.ts';

/**
 * A provider outcome that arrived after its object became final. It is never applied (a final
 * state never changes); it is stored on the object, shown as `late_outcome` and announced by a
 * `<object>.late_outcome` event, so the merchant can refund or chase. Payments, top-ups, refunds
 * and payouts use the same column, view and statement.
 */
// A type alias, not an interface: it must be assignable to the jsonb column's JsonValue.
export type LateOutcome = {
  status: 'succeeded' | 'failed';
  provider_reference: string | null;
  /** The provider's failure code when status is failed; null when it succeeded. */
  failure_code: string | null;
  /** When Purse received it (ISO 8601). */
  received_at: string;
};

/** What a connector reports (its final outcome), as far as a late outcome needs it. */
export interface ProviderFinalOutcome {
  status: 'succeeded' | 'failed';
  providerReference: string | null;
  failureCode?: string;
}

/**
 * The one builder of a late outcome: the stored JSON is this object, and the event payload is the
 * object's view of a row holding it, so the two cannot disagree. Never the raw connector object:
 * its shape belongs to the connector and would leak camelCase keys into the API.
 */
export function lateOutcome(outcome: ProviderFinalOutcome, receivedAt: Date): LateOutcome {
  return {
    status: outcome.status,
    provider_reference: outcome.providerReference,
    failure_code: outcome.status === 'failed' ? (outcome.failureCode ?? null) : null,
    received_at: receivedAt.toISOString(),
  };
}

/**
 * The stored column as the API shows it. Rows written before late outcomes were shown hold the
 * raw connector object (`providerReference`, `failureCode`); they are read into the same shape,
 * so no migration is needed and every response keeps the keys its schema promises.
 */
export function lateOutcomeView(stored: unknown): LateOutcome | null {
  if (stored === null || stored === undefined || typeof stored !== 'object') return null;
  const s = stored as Record<string, unknown>;
  const text = (...values: unknown[]) => {
    const found = values.find((v) => typeof v === 'string');
    return typeof found === 'string' ? found : null;
  };
  const status = s.status === 'succeeded' ? 'succeeded' : 'failed';
  return {
    status,
    provider_reference: text(s.provider_reference, s.providerReference),
    failure_code: status === 'failed' ? text(s.failure_code, s.failureCode) : null,
    // Every writer so far stored received_at; the epoch only keeps the promised shape if one did not.
    received_at: text(s.received_at) ?? new Date(0).toISOString(),
  };
}

/** The response schema of `late_outcome`, shared by every object that can have one. */
export const LateOutcomeSchema = Type.Union(
  [
    Type.Object({
      status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
      provider_reference: Type.Union([Type.String(), Type.Null()]),
      failure_code: Type.Union([Type.String(), Type.Null()], {
        description: "The provider's failure code when status is failed; null otherwise.",
      }),
      received_at: Type.String({ format: 'date-time' }),
    }),
    Type.Null(),
  ],
  {
    description:
      'A provider outcome that arrived after this object became final. It was never applied: status, amount ' +
      'and balances stay as they are; the `<object>.late_outcome` event announced it, so you can refund or ' +
      'chase. Null unless one arrived; the first one is kept and later ones change nothing. `failure_code` ' +
      'is set only when status is failed. One exception moves money: a refund that succeeded and then failed ' +
      '(the payer never got it) stays succeeded, and its amount comes back to the available balance and to ' +
      "the payment's refundable amount, once, in the same write that keeps the late outcome.",
  },
);

/** What to write: the object (a row of `table`), its new late outcome, and the event's rendered payload. */
export interface LateOutcomeWrite {
  /** A table with columns id, merchant_id, livemode, late_outcome (jsonb) and updated_at; listed so no name is built from input. */
  table: 'charges' | 'outflows';
  id: string;
  merchantId: string;
  callbackUrl: string | null;
  /** `eventType(kind, 'late_outcome')` of the object's kind. */
  type: EventType;
  eventId: string;
  outcome: LateOutcome;
  /** JSON of `{ object }`: the object as it reads with `outcome` and `updated_at = now`, rendered by its owner. */
  payload: string;
  now: Date;
}

/**
 * Keeps a late outcome in ONE statement: the column is set only while it is null (the first late
 * outcome wins; a later one changes nothing, not even updated_at), and in the same statement the
 * event and its deliveries are written, so an object shows a late outcome exactly when its one
 * event exists. Returns whether this call was the one that kept it.
 */
export async function recordLateOutcome(db: Db, w: LateOutcomeWrite): Promise<boolean> {
  const now = sql`${w.now}::timestamptz`;
  const late = { merchantId: sql`late.merchant_id`, objectId: sql`late.id`, livemode: sql`late.livemode`, at: now };
  const result = await sql<{ id: string }>`
    WITH late AS (
      UPDATE ${sql.table(w.table)} SET late_outcome = ${JSON.stringify(w.outcome)}::jsonb, updated_at = ${now}
      WHERE id = ${w.id} AND late_outcome IS NULL
      RETURNING id, merchant_id, livemode
    ), evs AS (${insertEvents(sql`late`, late, [{ id: w.eventId, type: w.type, payload: w.payload }])}
    ), deliveries AS (${deliveriesFor(sql`evs ev`, { from: sql`(SELECT ${w.callbackUrl}::text AS url) c`, on: sql`true`, url: sql`c.url` })})
    SELECT id FROM late`.execute(db);
  return result.rows.length > 0;
}
