import { type RawBuilder, sql } from 'kysely';
import {
  addRefunded,
  addRefundedEach,
  giveBackRefunded,
  lockPaymentForRefund,
  lockPaymentsForRefundEach,
  type RefundCapMode,
} from '../charges/store.ts';
import type { Db } from '../db/db.ts';
import { type MergedColumn, type MergedWrite, mergedInput } from '../db/group-commit.ts';
import * as queue from '../db/pending-queue.ts';
import type { OutflowKind, OutflowStatus } from '../db/schema.ts';
import { lateOutcome, type ProviderFinalOutcome, recordLateOutcome as writeLateOutcome } from '../events/late-outcome.ts';
import { eventType, eventTypeCase, insertEvents } from '../events/store.ts';
import { eventPayload } from '../events/view.ts';
import { merchantAccount, newEntryId, providerAccount, reservedAccount, walletAccount } from '../ledger/accounts.ts';
import {
  type FundsMode,
  fundsCover,
  holdFunds,
  holdFundsEach,
  lockFunds,
  lockFundsEach,
  releaseFunds,
} from '../ledger/merchant-balance.ts';
import { nextEntrySeq, postingCtes, postingEachCtes } from '../ledger/posting.ts';
import { walletCredit, walletCreditsCtes } from '../ledger/wallet-balance.ts';
import { FAILURE_MESSAGES, type FailureCode } from '../shared/failures.ts';
import { newId } from '../shared/ids.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';
import { lockWalletsEachSql } from '../wallets/store.ts';
import { deliveriesFor, deliveriesForEach } from '../webhooks/store.ts';
import { type OutflowRow, outflowView } from './view.ts';

/**
 * What the create statement decides, on the rows it locked:
 * - refused before anything is written (the service answers 400): payment_not_refundable,
 *   amount_too_large; `no_funds_row` means the merchant has no balance row in this currency yet;
 * - written as a failed outflow (the reference is used up): insufficient_funds,
 *   wallet_inactive, or the refusal the service knew beforehand (no provider);
 * - null: written as the plan's status, the money held (pending) or moved (wallet).
 */
export type Decision = 'payment_not_refundable' | 'amount_too_large' | 'no_funds_row' | WrittenFailure | null;
export type WrittenFailure = 'insufficient_funds' | 'wallet_inactive' | FailureCode;

export interface OutflowPlan {
  /** The outflow as it reads when the statement succeeds: pending (provider) or succeeded (wallet). */
  base: OutflowRow;
  /** A failure known before the statement, written at once (e.g. no connector serves the destination). */
  refuse: FailureCode | null;
}

/** The outflow as it reads once the statement has run: the plan's, or failed for `failure`. */
export function outflowOutcomeRow(base: OutflowRow, failure: WrittenFailure | null): OutflowRow {
  if (!failure) return base;
  return {
    ...base,
    status: 'failed',
    failure_code: failure,
    failure_message: FAILURE_MESSAGES[failure],
    completed_at: base.created_at,
    next_check_at: null,
    lease_until: null,
  };
}

/** Every column a new outflow is written with, in insert order, and its type. */
const OUTFLOW_COLUMNS = {
  id: 'text',
  kind: 'text',
  merchant_id: 'text',
  reference: 'text',
  request_fingerprint: 'jsonb',
  status: 'text',
  amount: 'bigint',
  currency: 'text',
  payment_id: 'text',
  reason: 'text',
  destination_type: 'text',
  destination: 'jsonb',
  wallet_id: 'text',
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
  next_check_at: 'timestamptz',
  lease_until: 'timestamptz',
} as const;

type Column = keyof typeof OUTFLOW_COLUMNS;

/** A jsonb column's parameter: the value as JSON text, NULL as NULL. */
const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

/** Where an outflow's money goes when it is created: the wallet, or the merchant's reserve until the provider answers. */
const inAccount = (base: OutflowRow) => (base.wallet_id ? walletAccount(base.wallet_id) : reservedAccount(base.merchant_id, base.currency));

/** `INSERT INTO outflows … SELECT … FROM decision d`: the plan's row, or the failed one `d.failure` names. */
function insertOutflow(base: OutflowRow, written: WrittenFailure[]): RawBuilder<unknown> {
  const failed = (column: Column, pick: (row: OutflowRow) => unknown) =>
    sql`CASE coalesce(d.failure, '') ${sql.join(
      written.map((f) => sql`WHEN ${f} THEN ${pick(outflowOutcomeRow(base, f))}::${sql.raw(OUTFLOW_COLUMNS[column])}`),
      sql` `,
    )} ELSE ${pick(base)}::${sql.raw(OUTFLOW_COLUMNS[column])} END`;
  const values: Record<Column, RawBuilder<unknown>> = {} as Record<Column, RawBuilder<unknown>>;
  for (const column of Object.keys(OUTFLOW_COLUMNS) as Column[]) {
    const value = base[column];
    const param = column === 'request_fingerprint' || column === 'destination' || column === 'metadata' ? json(value) : value;
    values[column] = sql`${param}::${sql.raw(OUTFLOW_COLUMNS[column])}`;
  }
  for (const column of ['status', 'failure_code', 'failure_message', 'completed_at', 'next_check_at', 'lease_until'] as const) {
    values[column] = failed(column, (row) => row[column]);
  }
  const columns = Object.keys(OUTFLOW_COLUMNS) as Column[];
  const inList = sql.join(written.map((f) => sql`${f}`));
  return sql`INSERT INTO outflows (${sql.join(columns.map((c) => sql.ref(c)))})
      SELECT ${sql.join(columns.map((c) => values[c]))} FROM decision d
      WHERE d.failure IS NULL${written.length ? sql` OR d.failure IN (${inList})` : sql``}`;
}

/**
 * Money leaving the merchant's funds: to the wallet (wallet, with the balance it leaves) or held
 * as reserved until the provider answers (provider destinations).
 */
function createPosting(base: OutflowRow, now: RawBuilder<unknown>): RawBuilder<unknown> {
  const amount = BigInt(base.amount);
  const merchant = merchantAccount(base.merchant_id, base.currency);
  const target = inAccount(base);
  const currency = sql`${base.currency}::text`;
  return postingCtes(
    {
      from: sql`ins i WHERE i.failure_code IS NULL`,
      step: base.wallet_id ? 'final' : 'hold',
      transactionId: newId('ledgerTransaction'),
      merchantId: sql`${base.merchant_id}::text`,
      sourceType: sql`${base.kind}::text`,
      sourceId: sql`${base.id}::text`,
      at: now,
      lines: [
        { id: newEntryId(merchant), account: merchant, currency, amount: sql`-${base.amount}::bigint`, balanceAfter: sql`NULL::bigint` },
        base.wallet_id
          ? {
              id: newEntryId(target),
              account: target,
              currency,
              amount: sql`${base.amount}::bigint`,
              balanceAfter: sql`(SELECT balance FROM credit)`,
              seq: sql`(SELECT seq FROM credit)`,
            }
          : { id: newEntryId(target), account: target, currency, amount: sql`${base.amount}::bigint`, balanceAfter: sql`NULL::bigint` },
      ],
    },
    [
      { account: merchant, currency: base.currency, amount: -amount },
      { account: target, currency: base.currency, amount },
    ],
  );
}

/** `<kind>.created` always; `<kind>.succeeded` / `.failed` when the statement ends it. */
function createEvents(base: OutflowRow, written: WrittenFailure[], now: RawBuilder<unknown>) {
  const created = { id: newId('event'), type: eventType(base.kind, 'created'), payload: eventPayload(outflowView(base)) };
  const payload = (failure: WrittenFailure | null) => eventPayload(outflowView(outflowOutcomeRow(base, failure)));
  const final = {
    id: newId('event'),
    type: eventTypeCase(sql`i.status`, { succeeded: eventType(base.kind, 'succeeded'), failed: eventType(base.kind, 'failed') }),
    payload: sql<string>`(CASE coalesce(i.failure_code, '') ${sql.join(
      written.map((f) => sql`WHEN ${f} THEN ${payload(f)}`),
      sql` `,
    )} ELSE ${payload(null)} END)`,
  };
  const object = {
    merchantId: sql`${base.merchant_id}::text`,
    objectId: sql`${base.id}::text`,
    livemode: sql`${base.livemode}::boolean`,
    at: now,
  };
  return sql`evs_created AS (${insertEvents(sql`ins i`, object, [created])}
    ), evs_final AS (${insertEvents(sql`ins i WHERE i.status <> 'pending'`, object, [final])}
    ), deliveries AS (${deliveriesFor(
      sql`(SELECT id, type FROM evs_created UNION ALL SELECT id, type FROM evs_final) ev`,
      base.merchant_id,
      base.callback_url,
      base.created_at,
    )})`;
}

export interface CreateModes {
  funds: FundsMode;
  refundCap: RefundCapMode;
}

/**
 * A refund or payout in ONE statement (one round trip). Locks, in the order every statement
 * touching these rows takes them (payment, merchant funds, wallet), then decides on the locked
 * rows; then the payment's amount_refunded, the funds' debit (and reserve), the wallet's credit,
 * the outflow row with its status, the balanced posting, the events and their deliveries. The
 * data-modifying CTEs commit together; a taken reference (23505) undoes all of it.
 *
 * - `(SELECT count(*) FROM x) >= 0` in a lock CTE's WHERE makes it run after x, so the locks
 *   are taken in order (CTEs otherwise run when first read).
 * - Refund cap: the payment's remaining amount is read from its locked row, and the UPDATE adds
 *   to the current value; the CHECK (amount_refunded <= amount) is the backstop.
 * - Funds: see ledger/merchant-balance.ts.
 */
export function createOutflowStatement(plan: OutflowPlan, modes: CreateModes): RawBuilder<{ decision: Decision }> {
  const { base } = plan;
  const amount = BigInt(base.amount);
  const now = sql`${base.created_at}::timestamptz`;
  const isRefund = base.kind === 'refund';
  const paymentId = base.payment_id;
  const pay = paymentId
    ? lockPaymentForRefund(base.merchant_id, paymentId, modes.refundCap)
    : sql`SELECT NULL::text AS status, 0::bigint AS amount, 0::bigint AS amount_refunded WHERE false`;
  const funds = lockFunds(base.merchant_id, base.currency, sql`(SELECT count(*) FROM pay) >= 0`, modes.funds);
  const dest = base.wallet_id
    ? sql`SELECT status FROM wallets WHERE id = ${base.wallet_id} AND merchant_id = ${base.merchant_id}
        AND (SELECT count(*) FROM funds) >= 0 FOR UPDATE`
    : sql`SELECT 'active'::text AS status`;
  const refuse = plan.refuse;
  const decision = sql`SELECT CASE
      ${
        isRefund
          ? sql`WHEN (SELECT status FROM pay) IS DISTINCT FROM 'succeeded' THEN 'payment_not_refundable'
      WHEN (SELECT amount - amount_refunded FROM pay) < ${amount.toString()}::bigint THEN 'amount_too_large'`
          : sql``
      }
      WHEN NOT EXISTS (SELECT 1 FROM funds) THEN 'no_funds_row'
      ${refuse ? sql`WHEN true THEN ${refuse}::text` : sql``}
      WHEN NOT ${fundsCover(amount)} THEN 'insufficient_funds'
      WHEN (SELECT status FROM dest) IS DISTINCT FROM 'active' THEN 'wallet_inactive'
      ELSE NULL END AS failure`;
  const ok = sql`(SELECT failure FROM decision) IS NULL`;
  const written: WrittenFailure[] = ['insufficient_funds', 'wallet_inactive', ...(refuse ? [refuse] : [])];
  const refunded = paymentId
    ? addRefunded({ paymentId, amount, now: base.created_at, where: ok, mode: modes.refundCap })
    : sql`SELECT 1 WHERE false`;
  const hold = holdFunds({
    merchantId: base.merchant_id,
    currency: base.currency,
    amount,
    held: base.status === 'pending' ? amount : 0n,
    where: ok,
    mode: modes.funds,
  });
  const credit = base.wallet_id
    ? walletCredit({
        from: sql`decision d`,
        walletId: sql`${base.wallet_id}::text`,
        amount: sql`${base.amount}::bigint`,
        where: sql`d.failure IS NULL AND wallets.merchant_id = ${base.merchant_id}`,
        now: base.created_at,
      })
    : sql`SELECT NULL::bigint AS balance, NULL::bigint AS seq WHERE false`;
  return sql`
    WITH pay AS (${pay}
    ), funds AS (${funds}
    ), dest AS (${dest}
    ), decision AS (${decision}
    ), refunded AS (${refunded}
    ), hold AS (${hold}
    ), credit AS (${credit}
    ), ins AS (${insertOutflow(base, written)}
      RETURNING id, status, failure_code
    ), ${createPosting(base, now)}, ${createEvents(base, written, now)}
    SELECT failure AS decision FROM decision`;
}

/** An outflow as one item of the merged statement: its plan, and the ids its posting and events take. */
export interface OutflowItem {
  plan: OutflowPlan;
  ids: { ledgerTransaction: string; outEntry: string; inEntry: string; createdEvent: string; finalEvent: string };
}

export function outflowItem(plan: OutflowPlan): OutflowItem {
  const { base } = plan;
  return {
    plan,
    ids: {
      ledgerTransaction: newId('ledgerTransaction'),
      outEntry: newEntryId(merchantAccount(base.merchant_id, base.currency)),
      inEntry: newEntryId(inAccount(base)),
      createdEvent: newId('event'),
      finalEvent: newId('event'),
    },
  };
}

const at = (value: Date | null) => (value === null ? null : value.toISOString());
/** The final event's payload when the statement ends the outflow with `failure` (null: as planned). */
const finalPayload = (base: OutflowRow, failure: WrittenFailure | null) => eventPayload(outflowView(outflowOutcomeRow(base, failure)));

/** The merged statement's input: one array parameter per column, one element per outflow, in arrival order (`ord`). */
const INPUT = mergedInput<OutflowItem>(
  [
    ['id', 'text', (o) => o.plan.base.id],
    ['kind', 'text', (o) => o.plan.base.kind],
    ['merchant_id', 'text', (o) => o.plan.base.merchant_id],
    ['reference', 'text', (o) => o.plan.base.reference],
    ['fingerprint', 'jsonb', (o) => json(o.plan.base.request_fingerprint)],
    ['status', 'text', (o) => o.plan.base.status],
    ['amount', 'bigint', (o) => o.plan.base.amount],
    ['currency', 'text', (o) => o.plan.base.currency],
    ['payment_id', 'text', (o) => o.plan.base.payment_id],
    ['reason', 'text', (o) => o.plan.base.reason],
    ['destination_type', 'text', (o) => o.plan.base.destination_type],
    ['destination', 'jsonb', (o) => json(o.plan.base.destination)],
    ['wallet_id', 'text', (o) => o.plan.base.wallet_id],
    ['description', 'text', (o) => o.plan.base.description],
    ['metadata', 'jsonb', (o) => json(o.plan.base.metadata)],
    ['callback_url', 'text', (o) => o.plan.base.callback_url],
    ['refuse', 'text', (o) => o.plan.refuse],
    ['refuse_message', 'text', (o) => (o.plan.refuse ? FAILURE_MESSAGES[o.plan.refuse] : null)],
    ['provider', 'text', (o) => o.plan.base.provider],
    ['livemode', 'boolean', (o) => o.plan.base.livemode],
    ['at', 'timestamptz', (o) => o.plan.base.created_at.toISOString()],
    ['completed_at', 'timestamptz', (o) => at(o.plan.base.completed_at)],
    ['lease', 'timestamptz', (o) => at(o.plan.base.lease_until)],
    ['ltx', 'text', (o) => o.ids.ledgerTransaction],
    ['out_entry', 'text', (o) => o.ids.outEntry],
    ['in_entry', 'text', (o) => o.ids.inEntry],
    ['merchant_account', 'text', (o) => merchantAccount(o.plan.base.merchant_id, o.plan.base.currency)],
    ['in_account', 'text', (o) => inAccount(o.plan.base)],
    ['created_event', 'text', (o) => o.ids.createdEvent],
    ['final_event', 'text', (o) => o.ids.finalEvent],
    ['created_type', 'text', (o) => eventType(o.plan.base.kind, 'created')],
    ['succeeded_type', 'text', (o) => eventType(o.plan.base.kind, 'succeeded')],
    ['failed_type', 'text', (o) => eventType(o.plan.base.kind, 'failed')],
    ['created_data', 'text', (o) => eventPayload(outflowView(o.plan.base))],
    // Only what can happen: a pending outflow has no final event unless it fails; only a wallet can be inactive.
    ['ok_data', 'text', (o) => (o.plan.base.status === 'pending' ? null : finalPayload(o.plan.base, null))],
    ['insufficient_data', 'text', (o) => finalPayload(o.plan.base, 'insufficient_funds')],
    ['inactive_data', 'text', (o) => (o.plan.base.wallet_id ? finalPayload(o.plan.base, 'wallet_inactive') : null)],
    ['refuse_data', 'text', (o) => (o.plan.refuse ? finalPayload(o.plan.base, o.plan.refuse) : null)],
  ] satisfies MergedColumn<OutflowItem>[],
  { ordinality: 'ord' },
);

/** Column `name` of the outcome row `o`. */
const o = (name: string) => sql.ref(`o.${name}`) as RawBuilder<string>;

/** Raised by the merged statement when its outflows together are more than the funds: each then runs alone. */
const FUNDS_SPLIT = 'merged outflows are more than the funds: each runs alone';

/**
 * Refunds and payouts as ONE statement for many (group-commit.ts MergedWrite): what
 * createOutflowStatement does for one, for each row of its array parameters, in the same lock
 * order (payments, funds, wallets; each set in key order). Each outflow is decided on the locked
 * rows as it would be alone: its payment (one per statement: the key), its destination wallet,
 * and its merchant's funds, which must cover the sum of the statement's outflows that reach the
 * funds check. When they do, each of those is covered whatever the order, exactly as one after
 * the other; when they do not (and there are several), the statement raises (FUNDS_SPLIT), the
 * batch is rolled back and each runs alone, so which ones fail insufficient_funds is decided in
 * arrival order. Several refunds to one wallet share the statement: its credit is their sum,
 * each line with its own balance after and seq (walletCreditsCtes). Funds moves are summed per
 * merchant and currency. Returns each item's decision, as the single statement does.
 */
function outflowsStatement(split: boolean): RawBuilder<{ id: string; decision: Decision }> {
  const written = sql`o.failure IS NULL OR o.failure IN ('insufficient_funds', 'wallet_inactive') OR o.failure = o.refuse`;
  const ok = sql`o.failure IS NULL`;
  const failed = (value: RawBuilder<unknown>, otherwise: RawBuilder<unknown> = sql`NULL`) =>
    sql`CASE WHEN ${ok} THEN ${value} ELSE ${otherwise} END`;
  const values: Record<Column, RawBuilder<unknown>> = {
    id: o('id'),
    kind: o('kind'),
    merchant_id: o('merchant_id'),
    reference: o('reference'),
    request_fingerprint: o('fingerprint'),
    status: failed(o('status'), sql.lit('failed')),
    amount: o('amount'),
    currency: o('currency'),
    payment_id: o('payment_id'),
    reason: o('reason'),
    destination_type: o('destination_type'),
    destination: o('destination'),
    wallet_id: o('wallet_id'),
    description: o('description'),
    metadata: o('metadata'),
    callback_url: o('callback_url'),
    failure_code: o('failure'),
    failure_message: sql`CASE o.failure WHEN 'insufficient_funds' THEN ${sql.lit(FAILURE_MESSAGES.insufficient_funds)}
      WHEN 'wallet_inactive' THEN ${sql.lit(FAILURE_MESSAGES.wallet_inactive)} ELSE o.refuse_message END`,
    provider: o('provider'),
    livemode: o('livemode'),
    created_at: o('at'),
    updated_at: o('at'),
    completed_at: failed(o('completed_at'), o('at')),
    next_check_at: failed(o('lease')),
    lease_until: failed(o('lease')),
  };
  const columns = Object.keys(OUTFLOW_COLUMNS) as Column[];
  const object = { merchantId: o('merchant_id'), objectId: o('id'), livemode: o('livemode'), at: o('at') };
  const createdEvent = insertEvents(sql`ins JOIN outcome o ON o.id = ins.id`, object, [
    { id: o('created_event'), type: o('created_type'), payload: o('created_data') },
  ]);
  const finalEvent = insertEvents(sql`ins JOIN outcome o ON o.id = ins.id WHERE ins.status <> 'pending'`, object, [
    {
      id: o('final_event'),
      type: sql<string>`CASE ins.status WHEN 'succeeded' THEN o.succeeded_type ELSE o.failed_type END`,
      payload: sql<string>`CASE coalesce(ins.failure_code, '') WHEN '' THEN o.ok_data WHEN 'insufficient_funds' THEN o.insufficient_data
        WHEN 'wallet_inactive' THEN o.inactive_data ELSE o.refuse_data END`,
    },
  ]);
  return sql`
    WITH input AS (${INPUT.select}
    ), pay AS (${lockPaymentsForRefundEach({ ids: sql`(SELECT array_agg(i.payment_id) FROM input i)` })}
    ), funds AS (${lockFundsEach({
      merchantIds: sql`(SELECT array_agg(DISTINCT i.merchant_id) FROM input i)`,
      currencies: sql`(SELECT array_agg(DISTINCT i.currency) FROM input i)`,
      after: sql`(SELECT count(*) FROM pay) >= 0`,
    })}
    ), dest AS (${lockWalletsEachSql({
      ids: sql`(SELECT array_agg(i.wallet_id) FROM input i)`,
      after: sql`(SELECT count(*) FROM funds) >= 0`,
    })}
    ), checked AS (
      SELECT i.*, f.credited - f.debited AS available,
        CASE WHEN i.kind = 'refund' AND p.status IS DISTINCT FROM 'succeeded' THEN 'payment_not_refundable'
             WHEN i.kind = 'refund' AND p.amount - p.amount_refunded < i.amount THEN 'amount_too_large'
             WHEN f.merchant_id IS NULL THEN 'no_funds_row'
             WHEN i.refuse IS NOT NULL THEN i.refuse END AS refused,
        CASE WHEN i.wallet_id IS NULL THEN 'active' ELSE d.status END AS dest_status
      FROM input i
      LEFT JOIN pay p ON p.id = i.payment_id AND p.merchant_id = i.merchant_id
      LEFT JOIN funds f ON f.merchant_id = i.merchant_id AND f.currency = i.currency
      LEFT JOIN dest d ON d.id = i.wallet_id AND d.merchant_id = i.merchant_id
    ), reaching AS (
      SELECT merchant_id, currency, count(*) AS n, sum(amount) AS total FROM checked WHERE refused IS NULL GROUP BY merchant_id, currency
    ), outcome AS (
      SELECT c.*,
        CASE WHEN c.refused IS NOT NULL THEN c.refused
             ${split ? sql`WHEN r.n > 1 AND r.total > c.available THEN purse_abort(${sql.lit(FUNDS_SPLIT)})` : sql``}
             WHEN c.available < c.amount THEN 'insufficient_funds'
             WHEN c.dest_status IS DISTINCT FROM 'active' THEN 'wallet_inactive' END AS failure
      FROM checked c LEFT JOIN reaching r ON r.merchant_id = c.merchant_id AND r.currency = c.currency
    ), refunded AS (${addRefundedEach({
      from: sql`outcome o`,
      paymentId: o('payment_id'),
      amount: o('amount'),
      now: o('at'),
      where: sql`${ok} AND o.kind = 'refund'`,
    })}
    ), hold AS (${holdFundsEach({
      from: sql`outcome o`,
      merchantId: o('merchant_id'),
      currency: o('currency'),
      amount: o('amount'),
      held: sql`CASE WHEN o.status = 'pending' THEN o.amount ELSE 0 END`,
      where: ok,
    })}
    ), ${walletCreditsCtes({
      name: 'credit',
      from: sql`outcome o`,
      item: o('id'),
      walletId: o('wallet_id'),
      amount: o('amount'),
      order: o('ord'),
      now: o('at'),
      where: sql`${ok} AND o.wallet_id IS NOT NULL`,
    })}, ins AS (
      INSERT INTO outflows (${sql.join(columns.map((c) => sql.ref(c)))})
      SELECT ${sql.join(columns.map((c) => values[c]))} FROM outcome o WHERE ${written}
      RETURNING id, status, failure_code
    ), ${postingEachCtes({
      from: sql`outcome o LEFT JOIN credit c ON c.item = o.id WHERE ${ok}`,
      transactionId: o('ltx'),
      merchantId: o('merchant_id'),
      sourceType: o('kind'),
      sourceId: o('id'),
      at: o('at'),
      currency: o('currency'),
      amount: o('amount'),
      // To a wallet the money has arrived; to a provider it is held until the provider answers.
      step: sql`CASE WHEN o.wallet_id IS NULL THEN 'hold' ELSE 'final' END`,
      out: { id: o('out_entry'), account: o('merchant_account'), balanceAfter: sql`NULL`, seq: 'not a wallet line' },
      in: {
        id: o('in_entry'),
        account: o('in_account'),
        balanceAfter: sql`c.balance`,
        seq: sql`CASE WHEN o.wallet_id IS NULL THEN ${nextEntrySeq} ELSE c.seq END`,
      },
    })}, evs_created AS (${createdEvent}
    ), evs_final AS (${finalEvent}
    ), deliveries AS (${deliveriesForEach(sql`(SELECT * FROM evs_created UNION ALL SELECT * FROM evs_final) ev`, {
      from: sql`outcome o`,
      on: sql`o.id = ev.object_id`,
      url: o('callback_url'),
    })})
    SELECT id, failure AS decision FROM outcome`;
}

/**
 * Refunds and payouts, merged in a batch: keyed by the refunded payment (its cap is decided on
 * its row, changed once per statement) or the outflow itself; touching the destination wallet,
 * so an outflow to a wallet never runs before a payment from it that came first.
 */
export const outflows = outflowsWrite('outflows', true);

/**
 * WRONG ON PURPOSE (negative control only, PURSE_NEGATIVE_CONTROL_GROUP_COMMIT=outflows-unsplit):
 * each outflow checked against the whole funds, not their sum: together they can take more than
 * there is.
 */
export const outflowsUnsplit = outflowsWrite('outflows unsplit', false);

function outflowsWrite(name: string, split: boolean): MergedWrite<OutflowItem, { id: string; decision: Decision }> {
  return {
    name,
    statement: outflowsStatement(split),
    columns: INPUT.parameters,
    key: (item) => item.plan.base.payment_id ?? item.plan.base.id,
    touches: (item) => (item.plan.base.wallet_id ? [item.plan.base.wallet_id] : []),
    id: (item) => item.plan.base.id,
  };
}

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
 * The reserved amount leaves: to the provider's account (succeeded: the money is out) or back
 * to the merchant's funds (failed).
 */
function completionPosting(p: OutflowCompletion, now: RawBuilder<unknown>): RawBuilder<unknown> {
  const { outflow } = p;
  const amount = BigInt(outflow.amount);
  const reserved = reservedAccount(outflow.merchant_id, outflow.currency);
  const to =
    p.status === 'succeeded'
      ? providerAccount(outflow.provider, outflow.destination_type, outflow.currency)
      : merchantAccount(outflow.merchant_id, outflow.currency);
  const line = (account: string, value: RawBuilder<unknown>) => ({
    id: newEntryId(account),
    account,
    currency: sql`fin.currency`,
    amount: value,
    balanceAfter: sql`NULL::bigint`,
  });
  return postingCtes(
    {
      from: sql`fin`,
      transactionId: newId('ledgerTransaction'),
      merchantId: sql`fin.merchant_id`,
      sourceType: sql`fin.kind`,
      sourceId: sql`fin.id`,
      at: now,
      lines: [line(reserved, sql`-fin.amount`), line(to, sql`fin.amount`)],
    },
    [
      { account: reserved, currency: outflow.currency, amount: -amount },
      { account: to, currency: outflow.currency, amount },
    ],
  );
}

/**
 * pending → final in ONE statement: the status (only from pending), on failure the payment's
 * amount_refunded and the funds given back, the reserve released, the posting, the event and
 * its deliveries. Locks in the create statement's order after the outflow row: payment, funds.
 * Returns the updated row, or undefined when it was already final.
 */
export async function completeOutflow(db: Db, p: OutflowCompletion): Promise<OutflowRow | undefined> {
  const { outflow } = p;
  const now = sql`${p.now}::timestamptz`;
  const failedSql = sql.lit(p.status === 'failed');
  const event = { id: newId('event'), type: eventType(outflow.kind, p.status), payload: p.payload };
  const fin = { merchantId: sql`fin.merchant_id`, objectId: sql`fin.id`, livemode: sql`fin.livemode`, at: now };
  const result = await sql<OutflowRow>`
    WITH fin AS (
      UPDATE outflows SET status = ${p.status}, failure_code = ${p.failureCode}, failure_message = ${p.failureMessage},
        provider_reference = coalesce(${p.providerReference}::text, provider_reference),
        completed_at = ${now}, updated_at = ${now}, lease_until = NULL, next_check_at = NULL
      WHERE id = ${outflow.id} AND status = 'pending'
      RETURNING *
    ), unrefund AS (${giveBackRefunded({
      from: sql`fin`,
      paymentId: sql`fin.payment_id`,
      amount: sql`fin.amount`,
      now: p.now,
      where: failedSql,
    })}
    ), released AS (${releaseFunds({
      from: sql`fin`,
      merchantId: sql`fin.merchant_id`,
      currency: sql`fin.currency`,
      amount: sql`fin.amount`,
      returned: failedSql,
      where: sql`(SELECT count(*) FROM unrefund) >= 0`,
    })}
    ), ${completionPosting(p, now)}, evs AS (${insertEvents(sql`fin`, fin, [event])}
    ), deliveries AS (${deliveriesFor(sql`evs ev`, outflow.merchant_id, outflow.callback_url, p.now)})
    SELECT * FROM fin`.execute(db);
  return result.rows[0];
}

export async function findOutflow(db: Db, merchantId: string, kind: OutflowKind, id: string) {
  return db
    .selectFrom('outflows')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
    .executeTakeFirst();
}

/**
 * Reconciliation's window: every refund or payout of a provider created since `since`, and every one still
 * pending whenever it was created, oldest first, at most `limit`.
 */
export async function findOutflowsToReconcile(db: Db, provider: string, since: Date, limit: number) {
  return db
    .selectFrom('outflows')
    .selectAll()
    .where('provider', '=', provider)
    .where((eb) => eb.or([eb('created_at', '>=', since), eb('status', '=', 'pending')]))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function findOutflowById(db: Db, id: string) {
  return db.selectFrom('outflows').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findOutflowByReference(db: Db, merchantId: string, kind: OutflowKind, reference: string) {
  return db
    .selectFrom('outflows')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
    .where('reference', '=', reference)
    .executeTakeFirst();
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

export interface OutflowFilters {
  reference?: string;
  status?: OutflowStatus;
  paymentId?: string;
  createdGte?: Date;
  createdLte?: Date;
}

export async function listOutflows(db: Db, merchantId: string, kind: OutflowKind, filters: OutflowFilters, page: PageRequest) {
  let q = db.selectFrom('outflows').selectAll().where('merchant_id', '=', merchantId).where('kind', '=', kind);
  if (filters.reference !== undefined) q = q.where('reference', '=', filters.reference);
  if (filters.status !== undefined) q = q.where('status', '=', filters.status);
  if (filters.paymentId !== undefined) q = q.where('payment_id', '=', filters.paymentId);
  if (filters.createdGte !== undefined) q = q.where('created_at', '>=', filters.createdGte);
  if (filters.createdLte !== undefined) q = q.where('created_at', '<=', filters.createdLte);
  return fetchPage(q, 'id', page);
}
