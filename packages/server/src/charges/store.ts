import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../db/db.ts';
import type { ChargeKind, ChargeStatus, MethodType } from '../db/schema.ts';
import { eventType, insertEvents, type NewEvent } from '../events/store.ts';
import { merchantAccount, newEntryId, providerAccount, walletAccount } from '../ledger/accounts.ts';
import { postingCtes } from '../ledger/posting.ts';
import { walletCredit } from '../ledger/wallet-balance.ts';
import { newId } from '../shared/ids.ts';
import { present } from '../shared/invariant.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';
import { deliveriesFor } from '../webhooks/store.ts';
import type { ChargeRow } from './view.ts';

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
 * The claim in ONE statement: the charge row as the service rendered it (pending, or already
 * final when no provider call is needed), its events and their deliveries. Undefined when the
 * reference is taken: ON CONFLICT DO NOTHING lets the unique index decide, and then no event
 * is written either.
 */
export async function claimCharge(db: Db, row: ChargeRow, events: NewEvent[]): Promise<ChargeRow | undefined> {
  const result = await sql<ChargeRow>`
    WITH ins AS (
      ${insertCharge(chargeValues(row))}
      ON CONFLICT (merchant_id, kind, reference) DO NOTHING
      RETURNING *
    ), evs AS (${insertEvents(sql`ins`, { merchantId: sql`ins.merchant_id`, objectId: sql`ins.id`, livemode: sql`ins.livemode`, at: sql`ins.created_at` }, events)}
    ), deliveries AS (${deliveriesFor(sql`evs ev`, row.merchant_id, row.callback_url, row.created_at)})
    SELECT * FROM ins`.execute(db);
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

/** Money in from the provider: to the merchant's funds (payment) or to the wallet (top-up). */
function providerPosting(charge: ChargeRow, at: RawBuilder<unknown>): RawBuilder<unknown> {
  const amount = BigInt(charge.amount);
  const source = providerAccount(charge.provider, charge.method_type, charge.currency);
  const target =
    charge.kind === 'payment'
      ? merchantAccount(charge.merchant_id, charge.currency)
      : walletAccount(present(charge.wallet_id, 'top-up wallet_id'));
  const line = (account: string, amountSql: RawBuilder<unknown>, balanceAfter: RawBuilder<unknown>, seq?: RawBuilder<unknown>) => ({
    id: newEntryId(account),
    account,
    currency: sql`fin.currency`,
    amount: amountSql,
    balanceAfter,
    ...(seq ? { seq } : {}),
  });
  return postingCtes(
    {
      from: sql`fin WHERE fin.status = 'succeeded'`,
      transactionId: newId('ledgerTransaction'),
      merchantId: sql`fin.merchant_id`,
      sourceType: sql`fin.kind`,
      sourceId: sql`fin.id`,
      at,
      lines: [
        line(source, sql`-fin.amount`, sql`NULL`),
        line(
          target,
          sql`fin.amount`,
          sql`(SELECT balance FROM credit)`,
          charge.kind === 'topup' ? sql`(SELECT seq FROM credit)` : undefined,
        ),
      ],
    },
    [
      { account: source, currency: charge.currency, amount: -amount },
      { account: target, currency: charge.currency, amount },
    ],
  );
}

/**
 * pending → final in ONE statement: the status change (only from pending: a final state never
 * changes), on success the balanced posting from the provider's account (a top-up's wallet
 * balance moves in the same statement), the event and its deliveries. Returns the updated row,
 * or undefined if it was already final.
 */
export async function completeCharge(db: Db, p: Completion): Promise<ChargeRow | undefined> {
  const { charge } = p;
  const now = sql`${p.now}::timestamptz`;
  const credit = walletCredit({
    from: sql`fin`,
    walletId: sql`fin.wallet_id`,
    amount: sql`fin.amount`,
    where: sql`fin.kind = 'topup' AND fin.status = 'succeeded'`,
    now: p.now,
  });
  const event = { id: newId('event'), type: eventType(charge.kind, p.status), payload: p.payload };
  const fin = { merchantId: sql`fin.merchant_id`, objectId: sql`fin.id`, livemode: sql`fin.livemode`, at: now };
  const result = await sql<ChargeRow>`
    WITH fin AS (
      UPDATE charges SET status = ${p.status}, failure_code = ${p.failureCode}, failure_message = ${p.failureMessage},
        provider_reference = coalesce(${p.providerReference}::text, provider_reference),
        completed_at = ${now}, updated_at = ${now}, lease_until = NULL, next_check_at = NULL
      WHERE id = ${charge.id} AND status = 'pending'
      RETURNING *
    ), credit AS (${credit}
    ), ${providerPosting(charge, now)}, evs AS (${insertEvents(sql`fin`, fin, [event])}
    ), deliveries AS (${deliveriesFor(sql`evs ev`, charge.merchant_id, charge.callback_url, p.now)})
    SELECT * FROM fin`.execute(db);
  return result.rows[0];
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

export async function findCharge(db: Db, merchantId: string, kind: ChargeKind, id: string) {
  return db
    .selectFrom('charges')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
    .executeTakeFirst();
}

export async function findChargeById(db: Db, id: string) {
  return db.selectFrom('charges').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The provider accepted the request and has not settled it yet. */
export async function markInitiated(db: Db, id: string, providerReference: string, nextCheckAt: Date, now: Date) {
  return db
    .updateTable('charges')
    .set({
      provider_reference: providerReference,
      provider_state: 'initiated',
      next_check_at: nextCheckAt,
      lease_until: null,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/** Hands the charge to the worker: the lease is dropped and it is looked at again at `nextCheckAt`. */
export async function releaseCharge(db: Db, id: string, nextCheckAt: Date): Promise<void> {
  await db
    .updateTable('charges')
    .set({ lease_until: null, next_check_at: nextCheckAt })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** Takes the lease of a pending charge whose previous holder is gone (or never had one). */
export async function claimLease(db: Db, id: string, now: Date, leaseUntil: Date) {
  return db
    .updateTable('charges')
    .set({ lease_until: leaseUntil, attempts: sql`attempts + 1` })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .returningAll()
    .executeTakeFirst();
}

/**
 * Claims up to `limit` due pending charges for this worker. SKIP LOCKED lets several server
 * processes share the queue; the lease keeps a request that is still calling the provider safe.
 */
export async function claimDueCharges(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<ChargeRow[]> {
  const result = await sql<ChargeRow>`
    UPDATE charges SET lease_until = ${leaseUntil}, attempts = attempts + 1,
      next_check_at = ${now}::timestamptz + make_interval(secs => least(300, power(2, least(attempts, 8))))
    WHERE id IN (
      SELECT id FROM charges
      WHERE status = 'pending' AND next_check_at <= ${now} AND (lease_until IS NULL OR lease_until < ${now})
      ORDER BY next_check_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING *`.execute(db);
  return result.rows;
}

/** A provider outcome that contradicts a final state: kept for reconciliation, never applied. */
export async function recordLateOutcome(db: Db, id: string, outcome: unknown, now: Date): Promise<void> {
  await db
    .updateTable('charges')
    .set({ late_outcome: JSON.stringify({ ...(outcome as object), received_at: now.toISOString() }), updated_at: now })
    .where('id', '=', id)
    .where('late_outcome', 'is', null)
    .execute();
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
