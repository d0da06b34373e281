import { type RawBuilder, sql } from 'kysely';
import { type MergedColumn, type MergedWrite, mergedInput } from '../db/group-commit.ts';
import { eventType, eventTypeCase, insertEvents } from '../events/store.ts';
import { eventPayload } from '../events/view.ts';
import { merchantAccount, newEntryId, walletAccount } from '../ledger/accounts.ts';
import { merchantCredit, merchantCreditEach } from '../ledger/merchant-balance.ts';
import { postingCtes, postingEachCtes } from '../ledger/posting.ts';
import { type DebitMode, walletDebit, walletDebitEach } from '../ledger/wallet-balance.ts';
import { FAILURE_MESSAGES } from '../shared/failures.ts';
import { newId } from '../shared/ids.ts';
import { present } from '../shared/invariant.ts';
import { walletStatusSql } from '../wallets/store.ts';
import { deliveriesFor, deliveriesForEach } from '../webhooks/store.ts';
import { chargeValues, insertCharge } from './store.ts';
import { type ChargeRow, chargeView } from './view.ts';

/** Provider name of wallet payments: money moves inside Purse's own ledger. */
export const INTERNAL_PROVIDER = 'purse';

/** Why a wallet payment fails: decided inside the statement, on the locked wallet row. */
export type WalletFailure = 'insufficient_funds' | 'wallet_inactive';

/** The ids a wallet payment writes besides the charge's, made before the statement. */
export interface WalletPaymentIds {
  ledgerTransaction: string;
  debitEntry: string;
  creditEntry: string;
  createdEvent: string;
  finalEvent: string;
}

export function newWalletPaymentIds(base: ChargeRow): WalletPaymentIds {
  const walletId = present(base.wallet_id, 'wallet id');
  return {
    ledgerTransaction: newId('ledgerTransaction'),
    debitEntry: newEntryId(walletAccount(walletId)),
    creditEntry: newEntryId(merchantAccount(base.merchant_id, base.currency)),
    createdEvent: newId('event'),
    finalEvent: newId('event'),
  };
}

/** The payment as it reads once the statement has run: succeeded, or failed for `failure`. */
export function walletPaymentRow(base: ChargeRow, failure: WalletFailure | null): ChargeRow {
  return {
    ...base,
    status: failure ? 'failed' : 'succeeded',
    failure_code: failure,
    failure_message: failure ? FAILURE_MESSAGES[failure] : null,
    completed_at: base.created_at,
  };
}

/** The wallet's debit and the merchant's credit, written only when the debit happened. */
function walletPosting(base: ChargeRow, ids: WalletPaymentIds, now: RawBuilder<unknown>): RawBuilder<unknown> {
  const walletId = present(base.wallet_id, 'wallet id');
  const amount = BigInt(base.amount);
  const wallet = walletAccount(walletId);
  const merchant = merchantAccount(base.merchant_id, base.currency);
  const currency = sql`${base.currency}`;
  return postingCtes(
    {
      from: sql`debit d`,
      transactionId: ids.ledgerTransaction,
      merchantId: sql`${base.merchant_id}`,
      sourceType: sql.lit('payment'),
      sourceId: sql`${base.id}`,
      at: now,
      lines: [
        {
          id: ids.debitEntry,
          account: wallet,
          currency,
          amount: sql`-${base.amount}::bigint`,
          balanceAfter: sql`d.balance`,
          seq: sql`d.seq`,
        },
        { id: ids.creditEntry, account: merchant, currency, amount: sql`${base.amount}::bigint`, balanceAfter: sql`NULL` },
      ],
    },
    [
      { account: wallet, currency: base.currency, amount: -amount },
      { account: merchant, currency: base.currency, amount },
    ],
  );
}

/** payment.created, then payment.succeeded or payment.failed with the payload of the outcome. */
function walletEvents(base: ChargeRow, ids: WalletPaymentIds, now: RawBuilder<unknown>): RawBuilder<unknown> {
  const payload = (failure: WalletFailure | null) => eventPayload(chargeView(walletPaymentRow(base, failure)));
  const object = { merchantId: sql`${base.merchant_id}`, objectId: sql`${base.id}`, livemode: sql`${base.livemode}::boolean`, at: now };
  return insertEvents(sql`ins i`, object, [
    { id: ids.createdEvent, type: eventType(base.kind, 'created'), payload: eventPayload(chargeView(base)) },
    {
      id: ids.finalEvent,
      type: eventTypeCase(sql`i.status`, { succeeded: eventType(base.kind, 'succeeded'), failed: eventType(base.kind, 'failed') }),
      payload: sql<string>`(CASE coalesce(i.failure_code, '') WHEN '' THEN ${payload(null)}
        WHEN 'insufficient_funds' THEN ${payload('insufficient_funds')} ELSE ${payload('wallet_inactive')} END)`,
    },
  ]);
}

/**
 * A wallet payment in ONE statement (one round trip): the wallet debit, the charge with its
 * final status, the balanced ledger posting, both events and their deliveries. Data-modifying
 * CTEs see one snapshot and commit together, so a failure anywhere undoes everything.
 *
 * - The debit is one conditional UPDATE (ledger/wallet-balance.ts); when it changes nothing,
 *   the wallet's status tells a frozen wallet from a poor one.
 * - The charge row is a plain INSERT: if another request holds the reference, the unique index
 *   raises 23505 and the whole statement, debit included, is rolled back. (No NOT EXISTS
 *   pre-check: on a database without statistics it was planned on the wrong index and scanned
 *   every payment of the merchant; the index decides anyway.)
 * - The merchant's funds are credited on one of its balance shards (ledger/merchant-balance.ts).
 * - Event types and payloads are rendered here for each possible outcome and chosen in SQL.
 *
 * `base` is the payment as rendered before the statement (pending, created now).
 */
export function walletPaymentStatement(
  base: ChargeRow,
  ids: WalletPaymentIds,
  debit: DebitMode,
  /** The merchant balance shard credited; random unless given (see charges/pgbench.ts). */
  shard?: number | string,
): RawBuilder<{ status: string; failure_code: WalletFailure | null }> {
  const walletId = present(base.wallet_id, 'wallet id');
  // Parameters in SELECT lists have no type of their own: cast them once here.
  const now = sql`${base.created_at}::timestamptz`;
  const failureMessage = sql`CASE o.failure_code WHEN 'insufficient_funds' THEN ${FAILURE_MESSAGES.insufficient_funds}
    WHEN 'wallet_inactive' THEN ${FAILURE_MESSAGES.wallet_inactive} END`;
  const charge = insertCharge(
    {
      ...chargeValues(base),
      status: sql`CASE WHEN o.failure_code IS NULL THEN 'succeeded' ELSE 'failed' END`,
      failure_code: sql`o.failure_code`,
      failure_message: failureMessage,
      completed_at: base.created_at,
    },
    sql`outcome o`,
  );
  const amountMinor = BigInt(base.amount);
  return sql`
    WITH w AS (${walletStatusSql(base.merchant_id, walletId)}
    ), debit AS (${walletDebit({ walletId, merchantId: base.merchant_id, amount: amountMinor, now: base.created_at }, debit)}
    ), outcome AS (
      SELECT CASE WHEN EXISTS (SELECT 1 FROM debit) THEN NULL
                  WHEN (SELECT status FROM w) = 'active' THEN 'insufficient_funds' ELSE 'wallet_inactive' END AS failure_code
    ), ins AS (${charge}
      RETURNING id, status, failure_code
    ), credit AS (${merchantCredit({
      from: sql`debit d`,
      merchantId: sql`${base.merchant_id}::text`,
      currency: sql`${base.currency}::text`,
      amount: sql`${base.amount}::bigint`,
      where: sql`true`,
      shard,
    })}
    ), ${walletPosting(base, ids, now)}, evs AS (${walletEvents(base, ids, now)}
    ), deliveries AS (${deliveriesFor(sql`evs ev`, base.merchant_id, base.callback_url, base.created_at)})
    SELECT status, failure_code FROM ins`;
}

/** A wallet payment as one item of the merged statement: the pending row, its ids, the shard it credits. */
export interface WalletPaymentItem {
  base: ChargeRow;
  ids: WalletPaymentIds;
  shard: number;
}

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

/** The merged statement's input: one array parameter per column, one element per payment. */
const INPUT = mergedInput<WalletPaymentItem>([
  ['id', 'text', (p) => p.base.id],
  ['merchant_id', 'text', (p) => p.base.merchant_id],
  ['reference', 'text', (p) => p.base.reference],
  ['fingerprint', 'jsonb', (p) => json(p.base.request_fingerprint)],
  ['amount', 'bigint', (p) => p.base.amount],
  ['currency', 'text', (p) => p.base.currency],
  ['method', 'jsonb', (p) => json(p.base.method)],
  ['wallet_id', 'text', (p) => p.base.wallet_id],
  ['customer', 'jsonb', (p) => json(p.base.customer)],
  ['description', 'text', (p) => p.base.description],
  ['metadata', 'jsonb', (p) => json(p.base.metadata)],
  ['callback_url', 'text', (p) => p.base.callback_url],
  ['livemode', 'boolean', (p) => p.base.livemode],
  ['at', 'timestamptz', (p) => p.base.created_at.toISOString()],
  ['shard', 'smallint', (p) => p.shard],
  ['ltx', 'text', (p) => p.ids.ledgerTransaction],
  ['debit_entry', 'text', (p) => p.ids.debitEntry],
  ['credit_entry', 'text', (p) => p.ids.creditEntry],
  ['wallet_account', 'text', (p) => walletAccount(present(p.base.wallet_id, 'wallet id'))],
  ['merchant_account', 'text', (p) => merchantAccount(p.base.merchant_id, p.base.currency)],
  ['created_event', 'text', (p) => p.ids.createdEvent],
  ['final_event', 'text', (p) => p.ids.finalEvent],
  ['created_data', 'text', (p) => eventPayload(chargeView(p.base))],
  ['succeeded_data', 'text', (p) => eventPayload(chargeView(walletPaymentRow(p.base, null)))],
  ['insufficient_data', 'text', (p) => eventPayload(chargeView(walletPaymentRow(p.base, 'insufficient_funds')))],
  ['inactive_data', 'text', (p) => eventPayload(chargeView(walletPaymentRow(p.base, 'wallet_inactive')))],
] satisfies MergedColumn<WalletPaymentItem>[]);

/** Column `name` of the outcome row `o`. */
const o = (name: string) => sql.ref(`o.${name}`) as RawBuilder<string>;

/**
 * Wallet payments as ONE statement for many (group-commit.ts MergedWrite): what
 * walletPaymentStatement does for one payment, for each row of its array parameters. Every
 * payment is decided on its own wallet row, and at most one per wallet is in a statement (the
 * key), so a payment sees the debits of the earlier statements of its batch. Credits to one
 * merchant shard are summed (an upsert changes a row once per statement). The text carries no
 * values: compiled once, prepared once per connection.
 */
function walletPaymentsStatement(): RawBuilder<{ id: string; status: string; failure_code: WalletFailure | null }> {
  const succeeded = sql`o.failure_code IS NULL`;
  const charge = insertCharge(
    {
      id: o('id'),
      kind: sql.lit('payment'),
      merchant_id: o('merchant_id'),
      reference: o('reference'),
      request_fingerprint: o('fingerprint'),
      status: sql`CASE WHEN ${succeeded} THEN 'succeeded' ELSE 'failed' END`,
      amount: o('amount'),
      currency: o('currency'),
      method_type: sql.lit('wallet'),
      method: o('method'),
      wallet_id: o('wallet_id'),
      customer: o('customer'),
      description: o('description'),
      metadata: o('metadata'),
      callback_url: o('callback_url'),
      failure_code: o('failure_code'),
      failure_message: sql`CASE o.failure_code WHEN 'insufficient_funds' THEN ${sql.lit(FAILURE_MESSAGES.insufficient_funds)}
        WHEN 'wallet_inactive' THEN ${sql.lit(FAILURE_MESSAGES.wallet_inactive)} END`,
      provider: sql.lit(INTERNAL_PROVIDER),
      livemode: o('livemode'),
      created_at: o('at'),
      updated_at: o('at'),
      completed_at: o('at'),
      expires_at: sql`NULL`,
      lease_until: sql`NULL`,
      next_check_at: sql`NULL`,
    },
    sql`outcome o`,
  );
  const events = insertEvents(sql`outcome o`, { merchantId: o('merchant_id'), objectId: o('id'), livemode: o('livemode'), at: o('at') }, [
    { id: o('created_event'), type: sql.lit(eventType('payment', 'created')), payload: o('created_data') },
    {
      id: o('final_event'),
      type: sql<string>`CASE WHEN ${succeeded} THEN ${sql.lit(eventType('payment', 'succeeded'))} ELSE ${sql.lit(eventType('payment', 'failed'))} END`,
      payload: sql<string>`CASE WHEN ${succeeded} THEN o.succeeded_data WHEN o.failure_code = 'insufficient_funds' THEN o.insufficient_data
        ELSE o.inactive_data END`,
    },
  ]);
  return sql`
    WITH input AS (${INPUT.select}
    ), debit AS (${walletDebitEach({
      from: sql`input i`,
      walletId: sql`i.wallet_id`,
      merchantId: sql`i.merchant_id`,
      amount: sql`i.amount`,
      now: sql`i.at`,
      returning: sql`i.id`,
    })}
    ), outcome AS (
      SELECT i.*, d.balance, d.seq,
        CASE WHEN d.id IS NOT NULL THEN NULL
             WHEN (${walletStatusSql(sql`i.merchant_id`, sql`i.wallet_id`)}) = 'active' THEN 'insufficient_funds'
             ELSE 'wallet_inactive' END AS failure_code
      FROM input i LEFT JOIN debit d ON d.id = i.id
    ), ins AS (${charge}
      RETURNING id, status, failure_code
    ), credit AS (${merchantCreditEach({
      from: sql`outcome o`,
      merchantId: o('merchant_id'),
      currency: o('currency'),
      shard: o('shard'),
      amount: o('amount'),
      where: succeeded,
    })}
    ), ${postingEachCtes({
      from: sql`outcome o WHERE ${succeeded}`,
      transactionId: o('ltx'),
      merchantId: o('merchant_id'),
      sourceType: sql.lit('payment'),
      sourceId: o('id'),
      at: o('at'),
      currency: o('currency'),
      amount: o('amount'),
      out: { id: o('debit_entry'), account: o('wallet_account'), balanceAfter: o('balance'), seq: o('seq') },
      in: { id: o('credit_entry'), account: o('merchant_account'), balanceAfter: sql`NULL`, seq: 'not a wallet line' },
    })}, evs AS (${events}
    ), deliveries AS (${deliveriesForEach(sql`evs ev`, { from: sql`outcome o`, on: sql`o.id = ev.object_id`, url: o('callback_url') })})
    SELECT id, status, failure_code FROM ins`;
}

/** Wallet payments, merged in a batch: keyed by wallet, so one wallet's payments apply in arrival order. */
export const walletPayments: MergedWrite<WalletPaymentItem, { id: string; status: string; failure_code: WalletFailure | null }> = {
  name: 'wallet payments',
  statement: walletPaymentsStatement(),
  columns: INPUT.parameters,
  key: (item) => present(item.base.wallet_id, 'wallet id'),
  id: (item) => item.base.id,
};
