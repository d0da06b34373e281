import { sql } from 'kysely';
import { giveBackRefunded } from '../../charges/store/refunded.ts';
import { after, ctes } from '../../db/cte.ts';
import type { Db } from '../../db/db.ts';
import type { LateOutcome } from '../../events/late-outcome.ts';
import { eventType, insertEvents } from '../../events/store.ts';
import { merchantAccount, newEntryId, providerAccount } from '../../ledger/accounts.ts';
import { creditShard, merchantCredit } from '../../ledger/merchant-balance.ts';
import { postingCtes } from '../../ledger/posting.ts';
import { newId } from '../../shared/ids.ts';
import { deliveriesFor } from '../../webhooks/store.ts';
import type { OutflowRow } from '../view.ts';

/** A refund the provider reported succeeded, now reported failed (the provider confirmed it). */
export interface RefundReversal {
  refund: OutflowRow;
  outcome: LateOutcome;
  now: Date;
  /** The `refund.late_outcome` event's payload (the refund as it reads with `outcome`), rendered by the caller. */
  payload: string;
}

/**
 * A succeeded refund that failed later, in ONE statement: its status stays succeeded (a final
 * state never changes) and the failure is kept as its late outcome; in the same statement the
 * money comes back, exactly once: the payment's amount_refunded gives the amount back (it can be
 * refunded again), the merchant's funds are credited, and a 'reversal' posting moves it from the
 * provider's account to the merchant's; the event and its deliveries too. Everything hangs on the
 * first CTE, which changes the row only while it has no late outcome: a second report (a
 * webhook twice, a poll racing it) finds none to change, and the unique (source_type, source_id,
 * step) index is the backstop. Locks: the refund, then its payment, then a credit shard (never
 * shard 0), the order the refund's create and completion statements take. Returns whether this
 * call was the one that reversed it.
 */
export async function reverseFailedRefund(db: Db, r: RefundReversal): Promise<boolean> {
  const { refund } = r;
  const c = ctes('late', 'unrefund', 'credit', 'ltx', 'entries', 'evs', 'deliveries');
  const now = sql`${r.now}::timestamptz`;
  const provider = providerAccount(refund.provider, refund.destination_type, refund.currency);
  const merchant = merchantAccount(refund.merchant_id, refund.currency);
  const late = { merchantId: sql`late.merchant_id`, objectId: sql`late.id`, livemode: sql`late.livemode`, at: now };
  const event = { id: newId('event'), type: eventType('refund', 'late_outcome'), payload: r.payload };
  const result = await sql<{ id: string }>`
    WITH ${c.late.ref} AS (
      UPDATE outflows SET late_outcome = ${JSON.stringify(r.outcome)}::jsonb, updated_at = ${now}
      WHERE id = ${refund.id} AND kind = 'refund' AND status = 'succeeded' AND late_outcome IS NULL
      RETURNING *
    ), ${c.unrefund.ref} AS (${giveBackRefunded({
      from: sql`${c.late.ref} late`,
      paymentId: sql`late.payment_id`,
      amount: sql`late.amount`,
      now: r.now,
      where: sql`true`,
    })}
    ), ${c.credit.ref} AS (${merchantCredit({
      from: sql`${c.late.ref} late`,
      merchantId: sql`late.merchant_id`,
      currency: sql`late.currency`,
      shard: sql`${creditShard()}`,
      amount: sql`late.amount`,
      where: after(c.unrefund),
    })}
    ), ${postingCtes({
      names: { transactions: c.ltx, entries: c.entries },
      from: sql`${c.late.ref} late`,
      transactionId: sql`${newId('ledgerTransaction')}::text`,
      merchantId: sql`late.merchant_id`,
      sourceType: sql`late.kind`,
      sourceId: sql`late.id`,
      at: now,
      currency: sql`late.currency`,
      amount: sql`late.amount`,
      step: 'reversal',
      out: {
        id: sql`${newEntryId(provider)}::text`,
        account: sql`${provider}::text`,
        balanceAfter: sql`NULL::bigint`,
        seq: 'not a wallet line',
      },
      in: {
        id: sql`${newEntryId(merchant)}::text`,
        account: sql`${merchant}::text`,
        balanceAfter: sql`NULL::bigint`,
        seq: 'not a wallet line',
      },
    })}, ${c.evs.ref} AS (${insertEvents(sql`${c.late.ref} late`, late, [event])}
    ), ${c.deliveries.ref} AS (${deliveriesFor(sql`${c.evs.ref} ev`, { from: sql`${c.late.ref} late`, on: sql`late.id = ev.object_id`, url: sql`late.callback_url` })})
    SELECT id FROM ${c.late.ref}`.execute(db);
  return result.rows.length > 0;
}
