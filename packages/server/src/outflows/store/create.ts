import { type RawBuilder, sql } from 'kysely';
import { appendAuditCtes } from '../../audit/chain.ts';
import type { AuditEntry } from '../../audit/types.ts';
import { addRefunded, lockPaymentsForRefund } from '../../charges/store/refunded.ts';
import { after, type Cte, columnOf, ctes } from '../../db/cte.ts';
import type { MergedWrite } from '../../db/group-commit.ts';
import { jsonParameter, type MergedColumn, mergedInput } from '../../db/merged-input.ts';
import { eventType, insertEvents } from '../../events/store.ts';
import { eventPayload } from '../../events/view.ts';
import { merchantAccount, newEntryId, reservedAccount, walletAccount } from '../../ledger/accounts.ts';
import { holdFunds, lockFunds } from '../../ledger/merchant-balance.ts';
import { nextEntrySeq, postingCtes } from '../../ledger/posting.ts';
import { walletCreditsCtes } from '../../ledger/wallet-balance.ts';
import { FAILURE_MESSAGES, type FailureCode, failureMessageSql } from '../../shared/failures.ts';
import { newId } from '../../shared/ids.ts';
import { lockWalletsSql } from '../../wallets/store.ts';
import { deliveriesFor } from '../../webhooks/store.ts';
import { type OutflowRow, outflowView } from '../view.ts';

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

/** Where an outflow's money goes when it is created: the wallet, or the merchant's reserve until the provider answers. */
const inAccount = (base: OutflowRow) => (base.wallet_id ? walletAccount(base.wallet_id) : reservedAccount(base.merchant_id, base.currency));

/** An outflow as one item of the merged statement: its plan, and the ids its posting and events take. */
export interface OutflowItem {
  plan: OutflowPlan;
  /** The audit record of the outflow's creation, appended by the statement when the outflow is written. */
  audit: AuditEntry;
  ids: { audit: string; ledgerTransaction: string; outEntry: string; inEntry: string; createdEvent: string; finalEvent: string };
}

export function outflowItem(plan: OutflowPlan, audit: AuditEntry): OutflowItem {
  const { base } = plan;
  return {
    plan,
    audit,
    ids: {
      audit: newId('auditEvent'),
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
    ['fingerprint', 'jsonb', (o) => jsonParameter(o.plan.base.request_fingerprint)],
    ['status', 'text', (o) => o.plan.base.status],
    ['amount', 'bigint', (o) => o.plan.base.amount],
    ['currency', 'text', (o) => o.plan.base.currency],
    ['payment_id', 'text', (o) => o.plan.base.payment_id],
    ['reason', 'text', (o) => o.plan.base.reason],
    ['destination_type', 'text', (o) => o.plan.base.destination_type],
    ['destination', 'jsonb', (o) => jsonParameter(o.plan.base.destination)],
    ['wallet_id', 'text', (o) => o.plan.base.wallet_id],
    ['description', 'text', (o) => o.plan.base.description],
    ['metadata', 'jsonb', (o) => jsonParameter(o.plan.base.metadata)],
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
    ['audit_id', 'text', (o) => o.ids.audit],
    ['audit_action', 'text', (o) => o.audit.action],
    ['actor_type', 'text', (o) => o.audit.actor.type],
    ['actor_id', 'text', (o) => o.audit.actor.id],
    ['actor_email', 'text', (o) => o.audit.actor.email ?? null],
    ['ip_address', 'text', (o) => o.audit.origin?.ip ?? null],
    ['user_agent', 'text', (o) => o.audit.origin?.userAgent ?? null],
    ['request_id', 'text', (o) => o.audit.origin?.requestId ?? null],
    ['audit_changes', 'jsonb', (o) => jsonParameter(o.audit.changes ?? null)],
  ] satisfies MergedColumn<OutflowItem>[],
  { ordinality: 'ord' },
);

/** A column of the `outcome` row (`o`): the outflow's input and what the statement decided for it. */
const outcome = columnOf('o');

/** Raised by the merged statement when its outflows together are more than the funds: each then runs alone. */
const FUNDS_SPLIT = 'merged outflows are more than the funds: each runs alone';

/** The failures the statement writes (the reference is used up) besides the plan's own refusal. */
const WRITTEN_FAILURES: readonly FailureCode[] = ['insufficient_funds', 'wallet_inactive'];

/** The outflow row as the statement writes it: the plan's values, or the failed row `o.failure` names. */
function outflowValues(): Record<Column, RawBuilder<unknown>> {
  const ok = sql`o.failure IS NULL`;
  const unlessFailed = (value: RawBuilder<unknown>, otherwise: RawBuilder<unknown> = sql`NULL`) =>
    sql`CASE WHEN ${ok} THEN ${value} ELSE ${otherwise} END`;
  return {
    id: outcome('id'),
    kind: outcome('kind'),
    merchant_id: outcome('merchant_id'),
    reference: outcome('reference'),
    request_fingerprint: outcome('fingerprint'),
    status: unlessFailed(outcome('status'), sql.lit('failed')),
    amount: outcome('amount'),
    currency: outcome('currency'),
    payment_id: outcome('payment_id'),
    reason: outcome('reason'),
    destination_type: outcome('destination_type'),
    destination: outcome('destination'),
    wallet_id: outcome('wallet_id'),
    description: outcome('description'),
    metadata: outcome('metadata'),
    callback_url: outcome('callback_url'),
    failure_code: outcome('failure'),
    failure_message: sql`coalesce(${failureMessageSql(outcome('failure'), WRITTEN_FAILURES)}, o.refuse_message)`,
    provider: outcome('provider'),
    livemode: outcome('livemode'),
    created_at: outcome('at'),
    updated_at: outcome('at'),
    completed_at: unlessFailed(outcome('completed_at'), outcome('at')),
    next_check_at: unlessFailed(outcome('lease')),
    lease_until: unlessFailed(outcome('lease')),
  };
}

/** `<kind>.created` for every written outflow, and `.succeeded` / `.failed` for one the statement ends. */
function outflowEvents(names: { created: Cte; final: Cte }, written: RawBuilder<unknown>): RawBuilder<unknown> {
  const object = { merchantId: outcome('merchant_id'), objectId: outcome('id'), livemode: outcome('livemode'), at: outcome('at') };
  const created = insertEvents(written, object, [
    { id: outcome('created_event'), type: outcome('created_type'), payload: outcome('created_data') },
  ]);
  const final = insertEvents(sql`${written} WHERE ins.status <> 'pending'`, object, [
    {
      id: outcome('final_event'),
      type: sql<string>`CASE ins.status WHEN 'succeeded' THEN o.succeeded_type ELSE o.failed_type END`,
      payload: sql<string>`CASE coalesce(ins.failure_code, '') WHEN '' THEN o.ok_data WHEN 'insufficient_funds' THEN o.insufficient_data
        WHEN 'wallet_inactive' THEN o.inactive_data ELSE o.refuse_data END`,
    },
  ]);
  return sql`${names.created.ref} AS (${created}
    ), ${names.final.ref} AS (${final}
    )`;
}

/** The audit record of each written outflow, appended to its merchant's chain after every other lock is taken. */
function outflowAudit(c: Record<'ins', Cte>, written: RawBuilder<unknown>) {
  const records = sql`(SELECT o.audit_id AS id, o.merchant_id, o.audit_action AS action, o.actor_type, o.actor_id, o.actor_email,
      o.kind AS target_type, o.id AS target_id, o.ip_address, o.user_agent, o.request_id, o.audit_changes AS changes,
      o.at AS created_at, o.ord FROM ${written}) f`;
  // Not named like the tables: in a WITH RECURSIVE a CTE hides the table of its name.
  const a = ctes('audit_items', 'audit_locked', 'audit_chain', 'audit_written', 'audit_moved');
  const names = { items: a.audit_items, heads: a.audit_locked, chain: a.audit_chain, audit: a.audit_written, head: a.audit_moved };
  return appendAuditCtes(names, records, after(c.ins));
}

/**
 * The CTEs that lock, in the one global order of db/lock-order.ts (the refunded payments, the
 * destination wallets, the merchants' funds; each set in key order), and decide each outflow on
 * the locked rows as it would be decided alone.
 */
function outflowDecisions(c: Record<'input' | 'pay' | 'funds' | 'dest' | 'checked' | 'reaching' | 'outcome', Cte>): RawBuilder<unknown> {
  return sql`${c.pay.ref} AS (${lockPaymentsForRefund({ ids: sql`(SELECT array_agg(i.payment_id) FROM ${c.input.ref} i)` })}
    ), ${c.dest.ref} AS (${lockWalletsSql({ ids: sql`(SELECT array_agg(i.wallet_id) FROM ${c.input.ref} i)`, after: c.pay })}
    ), ${c.funds.ref} AS (${lockFunds({
      merchantIds: sql`(SELECT array_agg(DISTINCT i.merchant_id) FROM ${c.input.ref} i)`,
      currencies: sql`(SELECT array_agg(DISTINCT i.currency) FROM ${c.input.ref} i)`,
      after: c.dest,
    })}
    ), ${c.checked.ref} AS (
      SELECT i.*, f.credited - f.debited AS available,
        CASE WHEN i.kind = 'refund' AND p.status IS DISTINCT FROM 'succeeded' THEN 'payment_not_refundable'
             WHEN i.kind = 'refund' AND p.amount - p.amount_refunded < i.amount THEN 'amount_too_large'
             WHEN f.merchant_id IS NULL THEN 'no_funds_row'
             WHEN i.refuse IS NOT NULL THEN i.refuse END AS refused,
        CASE WHEN i.wallet_id IS NULL THEN 'active' ELSE d.status END AS dest_status
      FROM ${c.input.ref} i
      LEFT JOIN ${c.pay.ref} p ON p.id = i.payment_id AND p.merchant_id = i.merchant_id
      LEFT JOIN ${c.funds.ref} f ON f.merchant_id = i.merchant_id AND f.currency = i.currency
      LEFT JOIN ${c.dest.ref} d ON d.id = i.wallet_id AND d.merchant_id = i.merchant_id
    ), ${c.reaching.ref} AS (
      SELECT merchant_id, currency, count(*) AS n, sum(amount) AS total FROM ${c.checked.ref} WHERE refused IS NULL GROUP BY merchant_id, currency
    ), ${c.outcome.ref} AS (
      SELECT c.*,
        CASE WHEN c.refused IS NOT NULL THEN c.refused
             WHEN r.n > 1 AND r.total > c.available THEN purse_abort(${sql.lit(FUNDS_SPLIT)})
             WHEN c.available < c.amount THEN 'insufficient_funds'
             WHEN c.dest_status IS DISTINCT FROM 'active' THEN 'wallet_inactive' END AS failure
      FROM ${c.checked.ref} c LEFT JOIN ${c.reaching.ref} r ON r.merchant_id = c.merchant_id AND r.currency = c.currency
    )`;
}

/**
 * Refunds and payouts (group-commit.ts MergedWrite), ONE statement for a batch's outflows. Each
 * is decided on the locked rows as it would be alone (outflowDecisions): its payment (one per
 * statement: the key), its destination wallet, and its merchant's funds, which must cover the
 * sum of the statement's outflows that reach the funds check. When they do, each of those is
 * covered whatever the order, exactly as one after the other; when they do not (and there are
 * several), the statement raises (FUNDS_SPLIT), the batch is rolled back and each runs alone, so
 * which ones fail insufficient_funds is decided in arrival order. Then the payment's
 * amount_refunded (added to the current value; the CHECK (amount_refunded <= amount) is the
 * backstop), the funds' debit and reserve (ledger/merchant-balance.ts), the wallet's credit,
 * the outflow row with its status, the balanced posting, the events and their deliveries.
 * Several refunds to one wallet share the statement: its credit is their sum, each line with
 * its own balance after and seq (walletCreditsCtes). A taken reference (23505) undoes all of it.
 * Returns each item's decision.
 */
function outflowsStatement(): RawBuilder<{ id: string; decision: Decision }> {
  const c = ctes(
    'input',
    'pay',
    'funds',
    'dest',
    'checked',
    'reaching',
    'outcome',
    'refunded',
    'hold',
    'credited_wallets',
    'credit',
    'ins',
    'ltx',
    'entries',
    'evs_created',
    'evs_final',
    'deliveries',
  );
  const written = sql`o.failure IS NULL OR o.failure IN ('insufficient_funds', 'wallet_inactive') OR o.failure = o.refuse`;
  const ok = sql`o.failure IS NULL`;
  const values = outflowValues();
  const columns = Object.keys(OUTFLOW_COLUMNS) as Column[];
  return sql`
    WITH RECURSIVE ${c.input.ref} AS (${INPUT.select}
    ), ${outflowDecisions(c)}, ${c.refunded.ref} AS (${addRefunded({
      from: sql`${c.outcome.ref} o`,
      paymentId: outcome('payment_id'),
      amount: outcome('amount'),
      now: outcome('at'),
      where: sql`${ok} AND o.kind = 'refund'`,
    })}
    ), ${c.hold.ref} AS (${holdFunds({
      from: sql`${c.outcome.ref} o`,
      merchantId: outcome('merchant_id'),
      currency: outcome('currency'),
      amount: outcome('amount'),
      held: sql`CASE WHEN o.status = 'pending' THEN o.amount ELSE 0 END`,
      where: ok,
    })}
    ), ${walletCreditsCtes({
      names: { wallets: c.credited_wallets, credits: c.credit },
      from: sql`${c.outcome.ref} o`,
      item: outcome('id'),
      walletId: outcome('wallet_id'),
      amount: outcome('amount'),
      order: outcome('ord'),
      now: outcome('at'),
      where: sql`${ok} AND o.wallet_id IS NOT NULL`,
    })}, ${c.ins.ref} AS (
      INSERT INTO outflows (${sql.join(columns.map((column) => sql.ref(column)))})
      SELECT ${sql.join(columns.map((column) => values[column]))} FROM ${c.outcome.ref} o WHERE ${written}
      RETURNING id, status, failure_code
    ), ${postingCtes({
      names: { transactions: c.ltx, entries: c.entries },
      from: sql`${c.outcome.ref} o LEFT JOIN ${c.credit.ref} c ON c.item = o.id WHERE ${ok}`,
      transactionId: outcome('ltx'),
      merchantId: outcome('merchant_id'),
      sourceType: outcome('kind'),
      sourceId: outcome('id'),
      at: outcome('at'),
      currency: outcome('currency'),
      amount: outcome('amount'),
      // To a wallet the money has arrived; to a provider it is held until the provider answers.
      step: sql`CASE WHEN o.wallet_id IS NULL THEN 'hold' ELSE 'final' END`,
      out: { id: outcome('out_entry'), account: outcome('merchant_account'), balanceAfter: sql`NULL`, seq: 'not a wallet line' },
      in: {
        id: outcome('in_entry'),
        account: outcome('in_account'),
        balanceAfter: sql`c.balance`,
        seq: sql`CASE WHEN o.wallet_id IS NULL THEN ${nextEntrySeq} ELSE c.seq END`,
      },
    })}, ${outflowEvents(
      { created: c.evs_created, final: c.evs_final },
      sql`${c.ins.ref} ins JOIN ${c.outcome.ref} o ON o.id = ins.id`,
    )}, ${c.deliveries.ref} AS (${deliveriesFor(sql`(SELECT * FROM ${c.evs_created.ref} UNION ALL SELECT * FROM ${c.evs_final.ref}) ev`, {
      from: sql`${c.outcome.ref} o`,
      on: sql`o.id = ev.object_id`,
      url: outcome('callback_url'),
    })}), ${outflowAudit(c, sql`${c.ins.ref} ins JOIN ${c.outcome.ref} o ON o.id = ins.id`)}
    SELECT id, failure AS decision FROM ${c.outcome.ref}`;
}

export type Outflows = MergedWrite<OutflowItem, { id: string; decision: Decision }>;

/**
 * Refunds and payouts, merged in a batch: keyed by the refunded payment (its cap is decided on
 * its row, changed once per statement) or the outflow itself; touching the destination wallet,
 * so an outflow to a wallet never runs before a payment from it that came first.
 */
export const outflows: Outflows = {
  name: 'outflows',
  statement: outflowsStatement(),
  columns: INPUT.parameters,
  key: (item) => item.plan.base.payment_id ?? item.plan.base.id,
  touches: (item) => (item.plan.base.wallet_id ? [item.plan.base.wallet_id] : []),
  // Payments, wallets, then the merchants' shard 0, each in key order (outflowDecisions).
  locks: ({ plan: { base } }) => ({
    ...(base.payment_id ? { charges: [base.payment_id] } : {}),
    ...(base.wallet_id ? { wallets: [base.wallet_id] } : {}),
    shards: [[base.merchant_id, base.currency, 0]],
  }),
  lockedInOrder: true,
  id: (item) => item.plan.base.id,
};
