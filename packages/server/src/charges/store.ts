import { type RawBuilder, sql } from 'kysely';
import type pg from 'pg';
import { type BatchedRead, createBatchedRead } from '../db/batched-read.ts';
import type { Db } from '../db/db.ts';
import { type MergedColumn, type MergedWrite, mergedInput, type WriteLane } from '../db/group-commit.ts';
import * as queue from '../db/pending-queue.ts';
import type { ChargeKind, ChargeStatus, MethodType } from '../db/schema.ts';
import { lateOutcome, type ProviderFinalOutcome, recordLateOutcome as writeLateOutcome } from '../events/late-outcome.ts';
import { eventType, insertEvents, type NewEvent } from '../events/store.ts';
import { eventPayload } from '../events/view.ts';
import { merchantAccount, newEntryId, providerAccount, walletAccount } from '../ledger/accounts.ts';
import { creditShard, merchantCreditEach } from '../ledger/merchant-balance.ts';
import { nextEntrySeq, postingEachCtes } from '../ledger/posting.ts';
import { walletCredit } from '../ledger/wallet-balance.ts';
import { newId } from '../shared/ids.ts';
import { present } from '../shared/invariant.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';
import { deliveriesFor, deliveriesForEach } from '../webhooks/store.ts';
import { type ChargeRow, chargeView } from './view.ts';

/** Every column a new charge is written with, and its type, for the statements that insert one. */
const CHARGE_COLUMNS = {
  id: 'text',
  kind: 'text',
  merchant_id: 'text',
  reference: 'text',
  request_fingerprint: 'jsonb',
  status: 'text',
  amount: 'bigint',
  currency: 'text',
  method_type: 'text',
  method: 'jsonb',
  wallet_id: 'text',
  customer: 'jsonb',
  description: 'text',
  metadata: 'jsonb',
  callback_url: 'text',
  failure_code: 'text',
  failure_message: 'text',
  provider: 'text',
  livemode: 'boolean',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  completed_at: 'timestamptz',
  expires_at: 'timestamptz',
  lease_until: 'timestamptz',
  next_check_at: 'timestamptz',
} as const;

/** A value per column: a JavaScript value (a parameter) or an SQL expression. JSON columns take JSON text. */
export type ChargeValues = Record<keyof typeof CHARGE_COLUMNS, RawBuilder<unknown> | string | boolean | Date | null>;

/**
 * `INSERT INTO charges (…) SELECT …`: one new charge per row of `from` (exactly one without).
 * Each value is cast to its column's type, so parameters never depend on inference.
 */
export function insertCharge(values: ChargeValues, from?: RawBuilder<unknown>): RawBuilder<unknown> {
  const columns = Object.keys(CHARGE_COLUMNS) as (keyof typeof CHARGE_COLUMNS)[];
  const selected = columns.map((c) => sql`${values[c]}::${sql.raw(CHARGE_COLUMNS[c])}`);
  return sql`INSERT INTO charges (${sql.join(columns.map((c) => sql.ref(c)))})
      SELECT ${sql.join(selected)}${from ? sql` FROM ${from}` : sql``}`;
}

/** The charge's columns as a new charge, from the row the service renders before writing it. */
export function chargeValues(row: ChargeRow): ChargeValues {
  const json = (v: unknown) => (v === null ? null : JSON.stringify(v));
  return {
    id: row.id,
    kind: row.kind,
    merchant_id: row.merchant_id,
    reference: row.reference,
    request_fingerprint: json(row.request_fingerprint),
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    method_type: row.method_type,
    method: json(row.method),
    wallet_id: row.wallet_id,
    customer: json(row.customer),
    description: row.description,
    metadata: json(row.metadata),
    callback_url: row.callback_url,
    failure_code: row.failure_code,
    failure_message: row.failure_message,
    provider: row.provider,
    livemode: row.livemode,
    created_at: row.created_at,
    updated_at: row.updated_at,
    completed_at: row.completed_at,
    expires_at: row.expires_at,
    lease_until: row.lease_until,
    next_check_at: row.next_check_at,
  };
}

/**
 * The group-commit lane of a charge's claim and, for a payment, its settlement: by reference, so
 * one merchant's charges spread over every lane (they share no row but their merchant's balance,
 * which each lane credits on a shard of its own), while two requests for one reference meet in one
 * lane, in arrival order, and never wait on each other's uncommitted row across lanes.
 */
export const chargeLaneKey = (charge: { merchant_id: string; kind: string; reference: string }): string =>
  `${charge.merchant_id}/${charge.kind}/${charge.reference}`;

/**
 * The claim in ONE statement: the charge row as the service rendered it (pending, or already
 * final when no provider call is needed), its events and their deliveries. Undefined when the
 * reference is taken: ON CONFLICT DO NOTHING lets the unique index decide, and then no event
 * is written either.
 */
export async function claimCharge(
  lane: WriteLane,
  row: ChargeRow,
  events: NewEvent[],
  conflictTarget: 'reference' | 'none (negative control)' = 'reference',
): Promise<ChargeRow | undefined> {
  const [only] = events;
  const merged =
    conflictTarget === 'reference' && events.length === 1 && only && typeof only.id === 'string' && typeof only.type === 'string';
  if (merged && typeof only.payload === 'string') {
    // The usual claim (a pending charge, its created event): merged with the batch's other claims.
    return lane.merge(claims, {
      values: chargeValues(row),
      event: { id: only.id as string, type: only.type as string, payload: only.payload },
    });
  }
  const target = conflictTarget === 'reference' ? sql`(merchant_id, kind, reference)` : sql``;
  const result = await lane.write(sql<ChargeRow>`
    WITH ins AS (
      ${insertCharge(chargeValues(row))}
      ON CONFLICT ${target} DO NOTHING
      RETURNING *
    ), evs AS (${insertEvents(sql`ins`, { merchantId: sql`ins.merchant_id`, objectId: sql`ins.id`, livemode: sql`ins.livemode`, at: sql`ins.created_at` }, events)}
    ), deliveries AS (${deliveriesFor(sql`evs ev`, row.merchant_id, row.callback_url, row.created_at)})
    SELECT * FROM ins`);
  return result.rows[0];
}

/** A provider's final word on a pending charge, as the statement writes it. */
export interface Completion {
  charge: ChargeRow;
  status: 'succeeded' | 'failed';
  failureCode: string | null;
  failureMessage: string | null;
  providerReference: string | null;
  now: Date;
  /** The event's payload (the charge as it will read once final), rendered by the caller. */
  payload: string;
}

/**
 * pending → final in ONE statement: the status change (only from pending: a final state never
 * changes), on success the balanced posting from the provider's account (a top-up's wallet
 * balance, or a payment's merchant funds, move in the same statement), the event and its deliveries. Returns the updated row,
 * or undefined if it was already final.
 */
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

export async function findChargeByReference(db: Db, merchantId: string, kind: ChargeKind, reference: string) {
  return db
    .selectFrom('charges')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
    .where('reference', '=', reference)
    .executeTakeFirst();
}

/**
 * One charge by id for a read (a GET, a refund's payment): lookups batched while others are in flight
 * (db/batched-read.ts). A row of another merchant or of the other kind answers nothing, exactly
 * as an unknown id.
 */
export type ChargeReader = BatchedRead<{ id: string; merchantId: string; kind: ChargeKind }, ChargeRow>;

export function createChargeReader(pool: pg.Pool): ChargeReader {
  return createBatchedRead({
    pool,
    text: 'SELECT * FROM charges WHERE id = ANY($1::text[])',
    accept: (lookup, row: ChargeRow) => row.merchant_id === lookup.merchantId && row.kind === lookup.kind,
    maxInFlight: 2,
    maxBatch: 256,
  });
}

export async function findCharge(db: Db, merchantId: string, kind: ChargeKind, id: string) {
  return db
    .selectFrom('charges')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
    .executeTakeFirst();
}

/**
 * Reconciliation's window: every charge of a provider created since `since`, and every one still
 * pending whenever it was created, oldest first, at most `limit`.
 */
export async function findChargesToReconcile(db: Db, provider: string, since: Date, limit: number) {
  return db
    .selectFrom('charges')
    .selectAll()
    .where('provider', '=', provider)
    .where((eb) => eb.or([eb('created_at', '>=', since), eb('status', '=', 'pending')]))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function findChargeById(db: Db, id: string) {
  return db.selectFrom('charges').selectAll().where('id', '=', id).executeTakeFirst();
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

export interface ChargeFilters {
  reference?: string;
  status?: ChargeStatus;
  methodType?: MethodType;
  createdGte?: Date;
  createdLte?: Date;
}

export async function listCharges(db: Db, merchantId: string, kind: ChargeKind, filters: ChargeFilters, page: PageRequest) {
  let q = db.selectFrom('charges').selectAll().where('merchant_id', '=', merchantId).where('kind', '=', kind);
  if (filters.reference !== undefined) q = q.where('reference', '=', filters.reference);
  if (filters.status !== undefined) q = q.where('status', '=', filters.status);
  if (filters.methodType !== undefined) q = q.where('method_type', '=', filters.methodType);
  if (filters.createdGte !== undefined) q = q.where('created_at', '>=', filters.createdGte);
  if (filters.createdLte !== undefined) q = q.where('created_at', '<=', filters.createdLte);
  return fetchPage(q, 'id', page);
}

/** How a refund decides what is left of its payment: the locked row, or the negative control's unlocked read. */
export type RefundCapMode = { kind: 'conditional' } | { kind: 'unlocked-read'; amountRefunded: bigint };

/**
 * `SELECT status, amount, amount_refunded … FOR UPDATE` of the merchant's payment, the body of
 * a refund statement's first CTE: the row lock serialises the refunds of one payment, and what
 * is left is read from the locked (current) row.
 */
export function lockPaymentForRefund(merchantId: string, paymentId: string, mode: RefundCapMode): RawBuilder<unknown> {
  const where = sql`id = ${paymentId} AND merchant_id = ${merchantId} AND kind = 'payment'`;
  if (mode.kind === 'unlocked-read') {
    // WRONG ON PURPOSE (negative control only): what was refunded, as read earlier without a lock.
    return sql`SELECT status, amount, ${mode.amountRefunded.toString()}::bigint AS amount_refunded FROM charges WHERE ${where}`;
  }
  return sql`SELECT status, amount, amount_refunded FROM charges WHERE ${where} FOR UPDATE`;
}

/** `UPDATE charges`: a new refund counts against the payment, when `where` holds (the negative control writes what it read plus the amount). */
export function addRefunded(p: { paymentId: string; amount: bigint; now: Date; where: RawBuilder<unknown>; mode: RefundCapMode }) {
  const refunded =
    p.mode.kind === 'conditional'
      ? sql`amount_refunded + ${p.amount.toString()}::bigint`
      : sql`${(p.mode.amountRefunded + p.amount).toString()}::bigint`;
  return sql`UPDATE charges SET amount_refunded = ${refunded}, updated_at = ${p.now}::timestamptz
      WHERE id = ${p.paymentId} AND ${p.where} RETURNING amount_refunded`;
}

/**
 * lockPaymentForRefund for a statement over many items: the payments `ids` (an SQL array), locked
 * in id order. Returns id, merchant_id, status, amount, amount_refunded, current (read from the
 * locked rows); the caller joins them on id and merchant. Values only in the condition (see
 * lockWalletsEachSql): a row changed meanwhile is always locked, on its new version.
 */
export function lockPaymentsForRefundEach(p: { ids: RawBuilder<unknown> }): RawBuilder<unknown> {
  return sql`SELECT c.id, c.merchant_id, c.status, c.amount, c.amount_refunded FROM charges c
      WHERE c.id = ANY (${p.ids}::text[]) AND c.kind = 'payment'
      ORDER BY c.id FOR UPDATE`;
}

/**
 * addRefunded for each row of `from` that passes `where`: `UPDATE charges … FROM from`. A
 * statement can update a row only once, so each payment is in `from` at most once (the batcher's key).
 */
export function addRefundedEach(p: {
  from: RawBuilder<unknown>;
  paymentId: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  now: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
}) {
  return sql`UPDATE charges SET amount_refunded = charges.amount_refunded + ${p.amount}, updated_at = ${p.now}
      FROM ${p.from} WHERE charges.id = ${p.paymentId} AND ${p.where} RETURNING charges.id`;
}

/** `UPDATE charges … FROM from`: a failed refund gives its amount back to its payment. */
export function giveBackRefunded(p: {
  from: RawBuilder<unknown>;
  paymentId: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  now: Date;
  where: RawBuilder<unknown>;
}) {
  return sql`UPDATE charges SET amount_refunded = amount_refunded - ${p.amount}, updated_at = ${p.now}::timestamptz
      FROM ${p.from} WHERE charges.id = ${p.paymentId} AND ${p.where} RETURNING charges.id`;
}

/** The negative control's read of what a payment has refunded, in its own round trip (see lockPaymentForRefund). */
export async function readRefundedUnlocked(db: Db, paymentId: string): Promise<RefundCapMode> {
  const row = await db.selectFrom('charges').select('amount_refunded').where('id', '=', paymentId).executeTakeFirst();
  return { kind: 'unlocked-read', amountRefunded: BigInt(row?.amount_refunded ?? '0') };
}

/** A claim merged with others (claimCharge): the new charge's column values and its created event. */
interface ClaimItem {
  values: ChargeValues;
  event: { id: string; type: string; payload: string };
}

const CLAIM_INPUT = mergedInput<ClaimItem>([
  ...(Object.entries(CHARGE_COLUMNS) as [keyof typeof CHARGE_COLUMNS, string][]).map(
    ([column, type]): MergedColumn<ClaimItem> => [
      column,
      type,
      (item) => {
        const value = item.values[column];
        return value instanceof Date ? value.toISOString() : value;
      },
    ],
  ),
  ['event_id', 'text', (item) => item.event.id],
  ['event_type', 'text', (item) => item.event.type],
  ['event_data', 'text', (item) => item.event.payload],
]);

/**
 * Claims as ONE statement for many (group-commit.ts MergedWrite): each pending charge with its
 * created event and deliveries; a reference already taken inserts nothing and has no row
 * (answered undefined, as claimCharge's own statement). Keyed by reference: two claims of one
 * reference are never in one statement.
 */
const claims: MergedWrite<ClaimItem, ChargeRow> = {
  name: 'claims',
  statement: sql<ChargeRow>`
    WITH input AS (${CLAIM_INPUT.select}
    ), ins AS (
      ${insertCharge(Object.fromEntries(Object.keys(CHARGE_COLUMNS).map((c) => [c, sql.ref(`i.${c}`)])) as ChargeValues, sql`input i`)}
      ON CONFLICT (merchant_id, kind, reference) DO NOTHING
      RETURNING *
    ), evs AS (${insertEvents(
      sql`ins JOIN input i ON i.id = ins.id`,
      { merchantId: sql`ins.merchant_id`, objectId: sql`ins.id`, livemode: sql`ins.livemode`, at: sql`ins.created_at` },
      [{ id: sql<string>`i.event_id`, type: sql<string>`i.event_type`, payload: sql<string>`i.event_data` }],
    )}
    ), deliveries AS (${deliveriesForEach(sql`evs ev`, { from: sql`ins c`, on: sql`c.id = ev.object_id`, url: sql`c.callback_url` })})
    SELECT * FROM ins`,
  columns: CLAIM_INPUT.parameters,
  key: (item) => chargeLaneKey(item.values as { merchant_id: string; kind: string; reference: string }),
  id: (item) => String(item.values.id),
  optional: true,
};

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
  ['at', 'timestamptz', (c) => c.p.now.toISOString()],
  ['event_id', 'text', (c) => c.eventId],
  ['event_type', 'text', (c) => eventType(c.p.charge.kind, c.p.status)],
  ['event_data', 'text', (c) => c.p.payload],
  ['ltx', 'text', (c) => c.ledgerTransaction],
  ['out_entry', 'text', (c) => c.outEntry],
  ['in_entry', 'text', (c) => c.inEntry],
  ['out_account', 'text', (c) => c.outAccount],
  ['in_account', 'text', (c) => c.inAccount],
  ['shard', 'smallint', (c) => c.shard],
] satisfies MergedColumn<CompletionItem>[]);

/**
 * Completions as ONE statement for many: what completeCharge's own statement does, for each row.
 * Only a pending charge changes (no row otherwise: answered undefined). A top-up credits its
 * wallet (one per wallet per statement: the key); payments credit their merchant's shard, summed.
 */
const completions: MergedWrite<CompletionItem, ChargeRow> = {
  name: 'completions',
  statement: sql<ChargeRow>`
    WITH input AS (${COMPLETION_INPUT.select}
    ), fin AS (
      UPDATE charges SET status = i.status, failure_code = i.failure_code, failure_message = i.failure_message,
        provider_reference = coalesce(i.provider_reference, charges.provider_reference),
        completed_at = i.at, updated_at = i.at, lease_until = NULL, next_check_at = NULL
      FROM input i
      WHERE charges.id = i.id AND charges.status = 'pending'
      RETURNING charges.*
    ), f AS (
      SELECT fin.*, i.at, i.event_id, i.event_type, i.event_data, i.ltx, i.out_entry, i.in_entry, i.out_account, i.in_account, i.shard
      FROM fin JOIN input i ON i.id = fin.id
    ), credit AS (${walletCredit({
      from: sql`f`,
      walletId: sql`f.wallet_id`,
      amount: sql`f.amount`,
      where: sql`f.kind = 'topup' AND f.status = 'succeeded'`,
      now: sql`f.at`,
      returning: sql`f.id`,
    })}
    ), funds AS (${merchantCreditEach({
      from: sql`f`,
      merchantId: sql`f.merchant_id`,
      currency: sql`f.currency`,
      shard: sql`f.shard`,
      amount: sql`f.amount`,
      where: sql`f.kind = 'payment' AND f.status = 'succeeded'`,
    })}
    ), ${postingEachCtes({
      from: sql`f LEFT JOIN credit c ON c.id = f.id WHERE f.status = 'succeeded'`,
      transactionId: sql`f.ltx`,
      merchantId: sql`f.merchant_id`,
      sourceType: sql`f.kind`,
      sourceId: sql`f.id`,
      at: sql`f.at`,
      currency: sql`f.currency`,
      amount: sql`f.amount`,
      out: { id: sql`f.out_entry`, account: sql`f.out_account`, balanceAfter: sql`NULL`, seq: 'not a wallet line' },
      // A top-up's line is its wallet's: the seq its UPDATE drew. A payment's draws its own.
      in: {
        id: sql`f.in_entry`,
        account: sql`f.in_account`,
        balanceAfter: sql`c.balance`,
        seq: sql`CASE WHEN f.kind = 'topup' THEN c.seq ELSE ${nextEntrySeq} END`,
      },
    })}, evs AS (${insertEvents(sql`f`, { merchantId: sql`f.merchant_id`, objectId: sql`f.id`, livemode: sql`f.livemode`, at: sql`f.at` }, [
      { id: sql<string>`f.event_id`, type: sql<string>`f.event_type`, payload: sql<string>`f.event_data` },
    ])}
    ), deliveries AS (${deliveriesForEach(sql`evs ev`, { from: sql`f`, on: sql`f.id = ev.object_id`, url: sql`f.callback_url` })})
    SELECT * FROM fin`,
  columns: COMPLETION_INPUT.parameters,
  // A top-up credits its wallet: once per wallet per statement. A payment touches only its own row.
  key: (item) => (item.p.charge.kind === 'topup' ? present(item.p.charge.wallet_id, 'top-up wallet') : item.p.charge.id),
  id: (item) => item.p.charge.id,
  optional: true,
};
