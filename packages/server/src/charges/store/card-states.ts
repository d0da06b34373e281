import { sql } from 'kysely';
import type { Db } from '../../db/db.ts';
import type { ChargeOperation } from '../../db/schema.ts';
import type { EventType } from '../../events/store.ts';
import { insertEvents } from '../../events/store.ts';
import { newId } from '../../shared/ids.ts';
import { deliveriesFor } from '../../webhooks/store.ts';
import type { ChargeRow } from '../view.ts';

/**
 * The card states on the way to a final one (requires_action, requires_capture) and the
 * merchant's capture or cancel requests. None of them moves money: an authorisation is a hold at
 * the acquirer, not money in the merchant's balance, so nothing here posts to the ledger (the
 * completion statement posts what a capture received).
 */

/** A card payment entering requires_action or requires_capture, with what the state shows. */
export interface CardStateChange {
  charge: ChargeRow;
  status: 'requires_action' | 'requires_capture';
  providerReference: string;
  /** requires_action: the public next action (a Purse URL), the acquirer's challenge page, when it expires. */
  nextAction: unknown;
  providerActionUrl: string | null;
  expiresAt: Date | null;
  /** requires_capture: what may be captured, and until when. */
  amountCapturableMinor: bigint | null;
  captureBefore: Date | null;
  threeDSecure: string | null;
  /** When the worker looks at it again (the challenge's expiry, the hold's). */
  nextCheckAt: Date;
  now: Date;
  eventType: EventType;
  /** The event's payload: the payment as it reads in the new state, rendered by the caller. */
  payload: string;
}

/**
 * Moves a payment that is not final to a card state, with its event and deliveries, in one
 * statement. Nothing when it is already in that state (a second return from the challenge, a
 * replayed answer) or final: undefined.
 */
export async function enterCardState(db: Db, p: CardStateChange): Promise<ChargeRow | undefined> {
  const at = sql`${p.now.toISOString()}::timestamptz`;
  const result = await sql<ChargeRow>`
    WITH upd AS (
      UPDATE charges SET status = ${p.status}, provider_reference = ${p.providerReference}, provider_state = 'initiated',
        next_action = ${p.nextAction === null ? null : JSON.stringify(p.nextAction)}::jsonb,
        provider_action_url = ${p.providerActionUrl}, expires_at = coalesce(${p.expiresAt?.toISOString() ?? null}::timestamptz, expires_at),
        amount_capturable = ${p.amountCapturableMinor?.toString() ?? null}::bigint,
        capture_before = ${p.captureBefore?.toISOString() ?? null}::timestamptz,
        three_d_secure = coalesce(${p.threeDSecure}::text, three_d_secure),
        next_check_at = ${p.nextCheckAt.toISOString()}::timestamptz, lease_until = NULL, updated_at = ${at}
      WHERE id = ${p.charge.id} AND completed_at IS NULL AND status <> ${p.status}
      RETURNING *
    ), evs AS (${insertEvents(sql`upd c`, { merchantId: sql`c.merchant_id`, objectId: sql`c.id`, livemode: sql`c.livemode`, at }, [
      { id: newId('event'), type: p.eventType, payload: p.payload },
    ])}
    ), deliveries AS (${deliveriesFor(sql`evs ev`, { from: sql`upd c`, on: sql`c.id = ev.object_id`, url: sql`c.callback_url` })})
    SELECT * FROM upd`.execute(db);
  return result.rows[0];
}

/**
 * Where each operation may start. Not from pending: a card is pending only while its
 * authorisation's outcome is unknown, and that call's answer would race the cancel.
 */
const ALLOWED_FROM: Record<ChargeOperation, readonly string[]> = {
  capture: ['requires_capture'],
  cancel: ['requires_action', 'requires_capture'],
};

/**
 * Records the merchant's capture or cancel before the acquirer is called: the conditional update
 * is what lets exactly one of concurrent operations on a payment win (a second finds
 * pending_operation set), and what a retry or the worker replays with the same idempotency key and
 * amount (each claim takes a new key generation, so an operation dropped earlier never lends its
 * key to the next). It is due for the worker when its lease ends, so an operation whose process died
 * (kill -9 while the acquirer held its answer) is sent again then, not at the hold's deadline.
 * A capture above what is capturable changes nothing. Undefined: not allowed now.
 */
export async function claimOperation(
  db: Db,
  p: {
    id: string;
    merchantId: string;
    operation: ChargeOperation;
    amountMinor: bigint | null;
    cancellationReason: string | null;
    now: Date;
    leaseUntil: Date;
  },
): Promise<ChargeRow | undefined> {
  const allowed = ALLOWED_FROM[p.operation];
  const amount = p.amountMinor?.toString() ?? null;
  const result = await sql<ChargeRow>`
    UPDATE charges SET pending_operation = ${p.operation}, operation_amount = ${amount}::bigint,
      operation_key_generation = least(operation_key_generation + 1, ${KEY_GENERATIONS}),
      cancellation_reason = ${p.cancellationReason},
      lease_until = ${p.leaseUntil.toISOString()}::timestamptz, next_check_at = ${p.leaseUntil.toISOString()}::timestamptz,
      updated_at = ${p.now.toISOString()}::timestamptz
    WHERE id = ${p.id} AND merchant_id = ${p.merchantId} AND kind = 'payment' AND method_type = 'card'
      AND status = ANY (${sql.val(allowed)}::text[]) AND pending_operation IS NULL
      AND (${amount}::bigint IS NULL OR ${amount}::bigint <= coalesce(amount_capturable, amount))
    RETURNING *`.execute(db);
  return result.rows[0];
}

/**
 * The acquirer refused the operation for the state the payment is in there (it moved meanwhile):
 * the request is dropped, and the state the acquirer reported is applied by the caller.
 */
export async function dropOperation(db: Db, id: string, now: Date): Promise<void> {
  await sql`UPDATE charges SET pending_operation = NULL, operation_amount = NULL, lease_until = NULL, updated_at = ${now.toISOString()}::timestamptz
    WHERE id = ${id} AND completed_at IS NULL`.execute(db);
}

/** A card payment seen again in the state it is in: due at `nextCheckAt`, unless an operation is recorded (it keeps its own). */
export async function releaseUnlessOperation(db: Db, id: string, nextCheckAt: Date): Promise<void> {
  await sql`UPDATE charges SET lease_until = NULL, next_check_at = ${nextCheckAt.toISOString()}::timestamptz
    WHERE id = ${id} AND completed_at IS NULL AND pending_operation IS NULL`.execute(db);
}

/** Takes the lease of a payment whose operation is waiting (its first caller died or timed out). */
export async function leaseOperation(db: Db, id: string, now: Date, leaseUntil: Date): Promise<ChargeRow | undefined> {
  const result = await sql<ChargeRow>`
    UPDATE charges SET lease_until = ${leaseUntil.toISOString()}::timestamptz, attempts = attempts + 1
    WHERE id = ${id} AND completed_at IS NULL AND pending_operation IS NOT NULL
      AND (lease_until IS NULL OR lease_until < ${now.toISOString()}::timestamptz)
    RETURNING *`.execute(db);
  return result.rows[0];
}

/** Where operation_key_generation stops (migration 010): past it, retries replay the last key. */
const KEY_GENERATIONS = 1000;

/**
 * The acquirer answered an operation with a 5xx, which it keeps under the key and replays to every
 * retry with it: the operation's next attempt (after a read shows the acquirer never acted) goes
 * out under a new key. Only while the operation is still recorded.
 */
export async function renewOperationKey(db: Db, id: string, now: Date): Promise<void> {
  await sql`UPDATE charges SET operation_key_generation = least(operation_key_generation + 1, ${KEY_GENERATIONS}),
      updated_at = ${now.toISOString()}::timestamptz
    WHERE id = ${id} AND completed_at IS NULL AND pending_operation IS NOT NULL`.execute(db);
}

/**
 * The idempotency key of a payment's authorisation, or of its capture or cancel of key generation
 * `generation` (charges.operation_key_generation): `pay_…:capture` for the first, `pay_…:capture:2`
 * after one renewal, and so on.
 */
export const operationKey = (paymentId: string, operation: ChargeOperation | 'authorise', generation = 1): string =>
  generation > 1 ? `${paymentId}:${operation}:${generation}` : `${paymentId}:${operation}`;
