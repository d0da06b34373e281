import { sql } from 'kysely';
import { giveBackRefunded } from '../../charges/store/refunded.ts';
import { after, ctes } from '../../db/cte.ts';
import type { Db } from '../../db/db.ts';
import * as queue from '../../db/pending-queue.ts';
import { lateOutcome, type ProviderFinalOutcome, recordLateOutcome as writeLateOutcome } from '../../events/late-outcome.ts';
import { eventType, insertEvents } from '../../events/store.ts';
import { eventPayload } from '../../events/view.ts';
import { merchantAccount, newEntryId, providerAccount, reservedAccount } from '../../ledger/accounts.ts';
import { releaseFunds } from '../../ledger/merchant-balance.ts';
import { postingCtes } from '../../ledger/posting.ts';
import { newId } from '../../shared/ids.ts';
import { deliveriesFor } from '../../webhooks/store.ts';
import { type OutflowRow, outflowView } from '../view.ts';

/** A provider's final word on a pending outflow. */
export interface OutflowCompletion {
  outflow: OutflowRow;
  status: 'succeeded' | 'failed';
  failureCode: string | null;
  failureMessage: string | null;
  providerReference: string | null;
  now: Date;
  /** The event's payload (the outflow as it will read once final), rendered by the caller. */
  payload: string;
}

/**
 * pending → final in ONE statement: the status (only from pending), on failure the payment's
 * amount_refunded and the funds given back, the reserve released, the posting (the reserved
 * amount leaves: to the provider's account when it succeeded, back to the merchant's funds when
 * it failed), the event and its deliveries. Locks in the create statement's order after the
 * outflow row: payment, funds. Returns the updated row, or undefined when it was already final.
 */
export async function completeOutflow(db: Db, p: OutflowCompletion): Promise<OutflowRow | undefined> {
  const { outflow } = p;
  const c = ctes('fin', 'unrefund', 'released', 'ltx', 'entries', 'evs', 'deliveries');
  const now = sql`${p.now}::timestamptz`;
  const failedSql = sql.lit(p.status === 'failed');
  const reserved = reservedAccount(outflow.merchant_id, outflow.currency);
  const to =
    p.status === 'succeeded'
      ? providerAccount(outflow.provider, outflow.destination_type, outflow.currency)
      : merchantAccount(outflow.merchant_id, outflow.currency);
  const event = { id: newId('event'), type: eventType(outflow.kind, p.status), payload: p.payload };
  const fin = { merchantId: sql`fin.merchant_id`, objectId: sql`fin.id`, livemode: sql`fin.livemode`, at: now };
  const result = await sql<OutflowRow>`
    WITH ${c.fin.ref} AS (
      UPDATE outflows SET status = ${p.status}, failure_code = ${p.failureCode}, failure_message = ${p.failureMessage},
        provider_reference = coalesce(${p.providerReference}::text, provider_reference),
        completed_at = ${now}, updated_at = ${now}, lease_until = NULL, next_check_at = NULL
      WHERE id = ${outflow.id} AND status = 'pending'
      RETURNING *
    ), ${c.unrefund.ref} AS (${giveBackRefunded({
      from: sql`${c.fin.ref} fin`,
      paymentId: sql`fin.payment_id`,
      amount: sql`fin.amount`,
      now: p.now,
      where: failedSql,
    })}
    ), ${c.released.ref} AS (${releaseFunds({
      from: sql`${c.fin.ref} fin`,
      merchantId: sql`fin.merchant_id`,
      currency: sql`fin.currency`,
      amount: sql`fin.amount`,
      returned: failedSql,
      where: after(c.unrefund),
    })}
    ), ${postingCtes({
      names: { transactions: c.ltx, entries: c.entries },
      from: sql`${c.fin.ref} fin`,
      transactionId: sql`${newId('ledgerTransaction')}::text`,
      merchantId: sql`fin.merchant_id`,
      sourceType: sql`fin.kind`,
      sourceId: sql`fin.id`,
      at: now,
      currency: sql`fin.currency`,
      amount: sql`fin.amount`,
      out: {
        id: sql`${newEntryId(reserved)}::text`,
        account: sql`${reserved}::text`,
        balanceAfter: sql`NULL::bigint`,
        seq: 'not a wallet line',
      },
      in: { id: sql`${newEntryId(to)}::text`, account: sql`${to}::text`, balanceAfter: sql`NULL::bigint`, seq: 'not a wallet line' },
    })}, ${c.evs.ref} AS (${insertEvents(sql`${c.fin.ref} fin`, fin, [event])}
    ), ${c.deliveries.ref} AS (${deliveriesFor(sql`${c.evs.ref} ev`, { from: sql`${c.fin.ref} fin`, on: sql`fin.id = ev.object_id`, url: sql`fin.callback_url` })})
    SELECT * FROM ${c.fin.ref}`.execute(db);
  return result.rows[0];
}

/** The pending-queue operations (db/pending-queue.ts) on the outflows table. */
export const markInitiated = (db: Db, id: string, providerReference: string | null, nextCheckAt: Date, now: Date) =>
  queue.markInitiated<OutflowRow>(db, 'outflows', { id, providerReference, nextCheckAt, now });
export const releaseOutflow = (db: Db, id: string, nextCheckAt: Date) => queue.release(db, 'outflows', id, nextCheckAt);
export const claimDueOutflows = (db: Db, now: Date, leaseUntil: Date, limit: number) =>
  queue.claimDue<OutflowRow>(db, 'outflows', now, leaseUntil, limit);

/**
 * A provider outcome that contradicts a final state: kept for reconciliation, never applied, and
 * announced by `<kind>.late_outcome` in the same statement (events/late-outcome.ts). Only the
 * first is kept; returns whether this one was.
 */
export async function recordLateOutcome(db: Db, outflow: OutflowRow, outcome: ProviderFinalOutcome, now: Date): Promise<boolean> {
  const late = lateOutcome(outcome, now);
  const shown: OutflowRow = { ...outflow, late_outcome: late, updated_at: now };
  return writeLateOutcome(db, {
    table: 'outflows',
    id: outflow.id,
    merchantId: outflow.merchant_id,
    callbackUrl: outflow.callback_url,
    type: eventType(outflow.kind, 'late_outcome'),
    eventId: newId('event'),
    outcome: late,
    payload: eventPayload(outflowView(shown)),
    now,
  });
}
