import { type RawBuilder, sql } from 'kysely';
import { ctes } from '../../db/cte.ts';
import type { Db } from '../../db/db.ts';
import type { MergedWrite, WriteLane } from '../../db/group-commit.ts';
import { type MergedColumn, mergedInput } from '../../db/merged-input.ts';
import * as queue from '../../db/pending-queue.ts';
import { lateOutcome, type ProviderFinalOutcome, recordLateOutcome as writeLateOutcome } from '../../events/late-outcome.ts';
import { eventType, insertEvents } from '../../events/store.ts';
import { eventPayload } from '../../events/view.ts';
import { merchantAccount, newEntryId, providerAccount, walletAccount } from '../../ledger/accounts.ts';
import { creditShard, merchantCredit } from '../../ledger/merchant-balance.ts';
import { nextEntrySeq, postingCtes } from '../../ledger/posting.ts';
import { walletCredit } from '../../ledger/wallet-balance.ts';
import { newId } from '../../shared/ids.ts';
import { present } from '../../shared/invariant.ts';
import { deliveriesFor } from '../../webhooks/store.ts';
import { type ChargeRow, chargeView } from '../view.ts';

/** A provider's final word on a charge not final yet, as the statement writes it. */
export interface Completion {
  charge: ChargeRow;
  status: 'succeeded' | 'failed' | 'canceled';
  failureCode: string | null;
  failureMessage: string | null;
  providerReference: string | null;
  /** Succeeded: what was received (the captured amount; the whole amount unless a partial capture). */
  receivedMinor: bigint;
  cancellationReason: string | null;
  threeDSecure: string | null;
  now: Date;
  /** The event: its type (payment.captured for a manual capture) and payload (the charge as it will read once final), rendered by the caller. */
  eventType: string;
  payload: string;
}

/** Not final → final, merged with the lane's other completions: the updated row, or undefined if it was already final. */
export async function completeCharge(lane: WriteLane, p: Completion): Promise<ChargeRow | undefined> {
  const { charge } = p;
  const source = providerAccount(charge.provider, charge.method_type, charge.currency);
  const target =
    charge.kind === 'payment'
      ? merchantAccount(charge.merchant_id, charge.currency)
      : walletAccount(present(charge.wallet_id, 'top-up wallet_id'));
  return lane.merge(completions, {
    p,
    eventId: newId('event'),
    ledgerTransaction: newId('ledgerTransaction'),
    outEntry: newEntryId(source),
    inEntry: newEntryId(target),
    outAccount: source,
    inAccount: target,
    shard: lane.shard ?? creditShard(),
  });
}

/** The pending-queue operations (db/pending-queue.ts) on the charges table. */
export const markInitiated = (db: Db, id: string, providerReference: string | null, nextCheckAt: Date, now: Date) =>
  queue.markInitiated<ChargeRow>(db, 'charges', { id, providerReference, nextCheckAt, now });
export const releaseCharge = (db: Db, id: string, nextCheckAt: Date) => queue.release(db, 'charges', id, nextCheckAt);
export const claimLease = (db: Db, id: string, now: Date, leaseUntil: Date) =>
  queue.claimLease<ChargeRow>(db, 'charges', id, now, leaseUntil);
export const claimDueCharges = (db: Db, now: Date, leaseUntil: Date, limit: number) =>
  queue.claimDue<ChargeRow>(db, 'charges', now, leaseUntil, limit);

/**
 * A provider outcome that contradicts a final state: never applied, kept on the charge and
 * announced by `payment.late_outcome` / `topup.late_outcome`, in one statement (see
 * events/late-outcome.ts). The stored outcome and the event's payload come from the same
 * `lateOutcome` object: the payload is the charge as it reads once it holds it. Only the first
 * late outcome is kept; returns whether this one was.
 */
export async function recordLateOutcome(db: Db, charge: ChargeRow, outcome: ProviderFinalOutcome, now: Date): Promise<boolean> {
  const late = lateOutcome(outcome, now);
  const shown: ChargeRow = { ...charge, late_outcome: late, updated_at: now };
  return writeLateOutcome(db, {
    table: 'charges',
    id: charge.id,
    merchantId: charge.merchant_id,
    callbackUrl: charge.callback_url,
    type: eventType(charge.kind, 'late_outcome'),
    eventId: newId('event'),
    outcome: late,
    payload: eventPayload(chargeView(shown)),
    now,
  });
}

/** A completion merged with others (completeCharge): what to write, and the ids and accounts of its posting. */
interface CompletionItem {
  p: Completion;
  eventId: string;
  ledgerTransaction: string;
  outEntry: string;
  inEntry: string;
  outAccount: string;
  inAccount: string;
  shard: number;
}

const COMPLETION_INPUT = mergedInput<CompletionItem>([
  ['id', 'text', (c) => c.p.charge.id],
  ['status', 'text', (c) => c.p.status],
  ['failure_code', 'text', (c) => c.p.failureCode],
  ['failure_message', 'text', (c) => c.p.failureMessage],
  ['provider_reference', 'text', (c) => c.p.providerReference],
  ['received', 'bigint', (c) => (c.p.status === 'succeeded' ? c.p.receivedMinor.toString() : null)],
  ['cancellation_reason', 'text', (c) => c.p.cancellationReason],
  ['three_d_secure', 'text', (c) => c.p.threeDSecure],
  ['at', 'timestamptz', (c) => c.p.now.toISOString()],
  ['event_id', 'text', (c) => c.eventId],
  ['event_type', 'text', (c) => c.p.eventType],
  ['event_data', 'text', (c) => c.p.payload],
  ['ltx', 'text', (c) => c.ledgerTransaction],
  ['out_entry', 'text', (c) => c.outEntry],
  ['in_entry', 'text', (c) => c.inEntry],
  ['out_account', 'text', (c) => c.outAccount],
  ['in_account', 'text', (c) => c.inAccount],
  ['shard', 'smallint', (c) => c.shard],
] satisfies MergedColumn<CompletionItem>[]);

function completionsStatement(): RawBuilder<ChargeRow> {
  const c = ctes('input', 'fin', 'f', 'credit', 'funds', 'ltx', 'entries', 'evs', 'deliveries');
  return sql<ChargeRow>`
    WITH ${c.input.ref} AS (${COMPLETION_INPUT.select}
    ), ${c.fin.ref} AS (
      UPDATE charges SET status = i.status, failure_code = i.failure_code, failure_message = i.failure_message,
        provider_reference = coalesce(i.provider_reference, charges.provider_reference),
        amount_received = i.received, amount_capturable = NULL, next_action = NULL, pending_operation = NULL,
        cancellation_reason = i.cancellation_reason, three_d_secure = coalesce(i.three_d_secure, charges.three_d_secure),
        completed_at = i.at, updated_at = i.at, lease_until = NULL, next_check_at = NULL
      FROM ${c.input.ref} i
      WHERE charges.id = i.id AND charges.completed_at IS NULL
      RETURNING charges.*
    ), ${c.f.ref} AS (
      SELECT fin.*, i.received, i.at, i.event_id, i.event_type, i.event_data, i.ltx, i.out_entry, i.in_entry, i.out_account, i.in_account, i.shard
      FROM ${c.fin.ref} fin JOIN ${c.input.ref} i ON i.id = fin.id
    ), ${c.credit.ref} AS (${walletCredit({
      from: sql`${c.f.ref} f`,
      walletId: sql`f.wallet_id`,
      amount: sql`f.received`,
      where: sql`f.kind = 'topup' AND f.status = 'succeeded'`,
      now: sql`f.at`,
      returning: sql`f.id`,
    })}
    ), ${c.funds.ref} AS (${merchantCredit({
      from: sql`${c.f.ref} f`,
      merchantId: sql`f.merchant_id`,
      currency: sql`f.currency`,
      shard: sql`f.shard`,
      amount: sql`f.received`,
      where: sql`f.kind = 'payment' AND f.status = 'succeeded'`,
    })}
    ), ${postingCtes({
      names: { transactions: c.ltx, entries: c.entries },
      from: sql`${c.f.ref} f LEFT JOIN ${c.credit.ref} c ON c.id = f.id WHERE f.status = 'succeeded'`,
      transactionId: sql`f.ltx`,
      merchantId: sql`f.merchant_id`,
      sourceType: sql`f.kind`,
      sourceId: sql`f.id`,
      at: sql`f.at`,
      currency: sql`f.currency`,
      amount: sql`f.received`,
      out: { id: sql`f.out_entry`, account: sql`f.out_account`, balanceAfter: sql`NULL`, seq: 'not a wallet line' },
      // A top-up's line is its wallet's: the seq its UPDATE drew. A payment's draws its own.
      in: {
        id: sql`f.in_entry`,
        account: sql`f.in_account`,
        balanceAfter: sql`c.balance`,
        seq: sql`CASE WHEN f.kind = 'topup' THEN c.seq ELSE ${nextEntrySeq} END`,
      },
    })}, ${c.evs.ref} AS (${insertEvents(
      sql`${c.f.ref} f`,
      { merchantId: sql`f.merchant_id`, objectId: sql`f.id`, livemode: sql`f.livemode`, at: sql`f.at` },
      [{ id: sql<string>`f.event_id`, type: sql<string>`f.event_type`, payload: sql<string>`f.event_data` }],
    )}
    ), ${c.deliveries.ref} AS (${deliveriesFor(sql`${c.evs.ref} ev`, { from: sql`${c.f.ref} f`, on: sql`f.id = ev.object_id`, url: sql`f.callback_url` })})
    SELECT * FROM ${c.fin.ref}`;
}

/**
 * Completions (group-commit.ts MergedWrite), ONE statement for a batch's provider outcomes: each
 * pending charge becomes final (only from pending: a final state never changes), and on success
 * the balanced posting from the provider's account moves a top-up's wallet balance or a
 * payment's merchant funds, with the event and its deliveries. Only a pending charge changes (no
 * row otherwise: answered undefined). A top-up credits its wallet (one per wallet per statement:
 * the key); payments credit their merchant's shard, summed.
 */
export const completions: MergedWrite<CompletionItem, ChargeRow> = {
  name: 'completions',
  statement: completionsStatement(),
  columns: COMPLETION_INPUT.parameters,
  // A top-up credits its wallet: once per wallet per statement. A payment touches only its own row.
  key: (item) => (item.p.charge.kind === 'topup' ? present(item.p.charge.wallet_id, 'top-up wallet') : item.p.charge.id),
  // Its charge, then the wallet a top-up credits or the shard a payment credits (db/lock-order.ts).
  locks: ({ p: { charge }, shard }) =>
    charge.kind === 'topup'
      ? { charges: [charge.id], wallets: [present(charge.wallet_id, 'top-up wallet')] }
      : { charges: [charge.id], shards: [[charge.merchant_id, charge.currency, shard]] },
  id: (item) => item.p.charge.id,
  optional: true,
};
