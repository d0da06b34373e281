import { type RawBuilder, sql } from 'kysely';
import { columnOf, ctes } from '../../db/cte.ts';
import type { MergedWrite } from '../../db/group-commit.ts';
import { jsonParameter, type MergedColumn, mergedInput } from '../../db/merged-input.ts';
import { eventType, insertEvents } from '../../events/store.ts';
import { eventPayload } from '../../events/view.ts';
import { merchantAccount, newEntryId, walletAccount } from '../../ledger/accounts.ts';
import { merchantCredit } from '../../ledger/merchant-balance.ts';
import { postingCtes } from '../../ledger/posting.ts';
import { walletDebit } from '../../ledger/wallet-balance.ts';
import { FAILURE_MESSAGES, failureMessageSql } from '../../shared/failures.ts';
import { newId } from '../../shared/ids.ts';
import { present } from '../../shared/invariant.ts';
import { lockWalletsSql, walletStatusSql } from '../../wallets/store.ts';
import { deliveriesFor } from '../../webhooks/store.ts';
import { type ChargeRow, chargeView } from '../view.ts';
import { insertCharge } from './create.ts';

/** Provider name of wallet payments: money moves inside Purse's own ledger. */
export const INTERNAL_PROVIDER = 'purse';

/** Why a wallet payment fails: decided inside the statement, on the locked wallet row. */
export type WalletFailure = 'insufficient_funds' | 'wallet_inactive';
const WALLET_FAILURES: readonly WalletFailure[] = ['insufficient_funds', 'wallet_inactive'];

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

/** A wallet payment as one item of the merged statement: the pending row, its ids, the shard it credits. */
export interface WalletPaymentItem {
  base: ChargeRow;
  ids: WalletPaymentIds;
  shard: number;
}

/** The merged statement's input: one array parameter per column, one element per payment. */
const INPUT = mergedInput<WalletPaymentItem>([
  ['id', 'text', (p) => p.base.id],
  ['merchant_id', 'text', (p) => p.base.merchant_id],
  ['reference', 'text', (p) => p.base.reference],
  ['fingerprint', 'jsonb', (p) => jsonParameter(p.base.request_fingerprint)],
  ['amount', 'bigint', (p) => p.base.amount],
  ['currency', 'text', (p) => p.base.currency],
  ['method', 'jsonb', (p) => jsonParameter(p.base.method)],
  ['wallet_id', 'text', (p) => p.base.wallet_id],
  ['customer', 'jsonb', (p) => jsonParameter(p.base.customer)],
  ['description', 'text', (p) => p.base.description],
  ['metadata', 'jsonb', (p) => jsonParameter(p.base.metadata)],
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

/** A column of the `outcome` row (`o`): the payment's input and what the statement decided for it. */
const outcome = columnOf('o');

function walletPaymentEvents(succeeded: RawBuilder<unknown>, from: RawBuilder<unknown>): RawBuilder<unknown> {
  const object = { merchantId: outcome('merchant_id'), objectId: outcome('id'), livemode: outcome('livemode'), at: outcome('at') };
  return insertEvents(from, object, [
    { id: outcome('created_event'), type: sql.lit(eventType('payment', 'created')), payload: outcome('created_data') },
    {
      id: outcome('final_event'),
      type: sql<string>`CASE WHEN ${succeeded} THEN ${sql.lit(eventType('payment', 'succeeded'))} ELSE ${sql.lit(eventType('payment', 'failed'))} END`,
      payload: sql<string>`CASE WHEN ${succeeded} THEN o.succeeded_data WHEN o.failure_code = 'insufficient_funds' THEN o.insufficient_data
        ELSE o.inactive_data END`,
    },
  ]);
}

/** The charge row of each item of `from` (alias o), with its final status. */
function walletCharges(from: RawBuilder<unknown>): RawBuilder<unknown> {
  const succeeded = sql`o.failure_code IS NULL`;
  return insertCharge(
    {
      id: outcome('id'),
      kind: sql.lit('payment'),
      merchant_id: outcome('merchant_id'),
      reference: outcome('reference'),
      request_fingerprint: outcome('fingerprint'),
      status: sql`CASE WHEN ${succeeded} THEN 'succeeded' ELSE 'failed' END`,
      amount: outcome('amount'),
      currency: outcome('currency'),
      method_type: sql.lit('wallet'),
      method: outcome('method'),
      wallet_id: outcome('wallet_id'),
      customer: outcome('customer'),
      description: outcome('description'),
      metadata: outcome('metadata'),
      callback_url: outcome('callback_url'),
      failure_code: outcome('failure_code'),
      failure_message: failureMessageSql(outcome('failure_code'), WALLET_FAILURES),
      provider: sql.lit(INTERNAL_PROVIDER),
      livemode: outcome('livemode'),
      created_at: outcome('at'),
      updated_at: outcome('at'),
      completed_at: outcome('at'),
      expires_at: sql`NULL`,
      lease_until: sql`NULL`,
      next_check_at: sql`NULL`,
    },
    from,
  );
}

/**
 * Wallet payments (group-commit.ts MergedWrite), ONE statement for a batch's payments: for each,
 * the wallet debit, the charge with its final status, the balanced ledger posting, both events
 * and their deliveries. Data-modifying CTEs see one snapshot and commit together, so a failure
 * anywhere undoes everything.
 *
 * - The debit is one conditional UPDATE per wallet (ledger/wallet-balance.ts); when it changes
 *   nothing, the wallet's status tells a frozen wallet from a poor one. At most one payment per
 *   wallet is in a statement (the key), so a payment sees the debits of the earlier statements
 *   of its batch.
 * - The charge row is a plain INSERT: if another request holds the reference, the unique index
 *   raises 23505 and the whole statement, debit included, is rolled back. (No NOT EXISTS
 *   pre-check: on a database without statistics it was planned on the wrong index and scanned
 *   every payment of the merchant; the index decides anyway.)
 * - The merchant's funds are credited on the lane's balance shard, summed per shard (an upsert
 *   changes a row once per statement).
 * - Event payloads are rendered by the service for each possible outcome and chosen in SQL.
 */
function walletPaymentsStatement(): RawBuilder<{ id: string; status: string; failure_code: WalletFailure | null }> {
  const c = ctes('input', 'locked', 'debit', 'outcome', 'ins', 'credit', 'ltx', 'entries', 'evs', 'deliveries');
  const succeeded = sql`o.failure_code IS NULL`;
  return sql`
    WITH ${c.input.ref} AS (${INPUT.select}
    ), ${c.locked.ref} AS (${lockWalletsSql({ ids: sql`(SELECT array_agg(i.wallet_id) FROM ${c.input.ref} i)`, after: null })}
    ), ${c.debit.ref} AS (${walletDebit({
      // Every wallet locked, in id order, before the first debit: a one-time filter runs first.
      from: sql`(SELECT * FROM ${c.input.ref} WHERE (SELECT count(*) FROM ${c.locked.ref}) >= 0) i`,
      walletId: sql`i.wallet_id`,
      merchantId: sql`i.merchant_id`,
      amount: sql`i.amount`,
      now: sql`i.at`,
      returning: sql`i.id`,
    })}
    ), ${c.outcome.ref} AS (
      SELECT i.*, d.balance, d.seq,
        CASE WHEN d.id IS NOT NULL THEN NULL
             WHEN (${walletStatusSql(sql`i.merchant_id`, sql`i.wallet_id`)}) = 'active' THEN 'insufficient_funds'
             ELSE 'wallet_inactive' END AS failure_code
      FROM ${c.input.ref} i LEFT JOIN ${c.debit.ref} d ON d.id = i.id
    ), ${c.ins.ref} AS (${walletCharges(sql`${c.outcome.ref} o`)}
      RETURNING id, status, failure_code
    ), ${c.credit.ref} AS (${merchantCredit({
      from: sql`${c.outcome.ref} o`,
      merchantId: outcome('merchant_id'),
      currency: outcome('currency'),
      shard: outcome('shard'),
      amount: outcome('amount'),
      where: succeeded,
    })}
    ), ${postingCtes({
      names: { transactions: c.ltx, entries: c.entries },
      from: sql`${c.outcome.ref} o WHERE ${succeeded}`,
      transactionId: outcome('ltx'),
      merchantId: outcome('merchant_id'),
      sourceType: sql.lit('payment'),
      sourceId: outcome('id'),
      at: outcome('at'),
      currency: outcome('currency'),
      amount: outcome('amount'),
      out: { id: outcome('debit_entry'), account: outcome('wallet_account'), balanceAfter: outcome('balance'), seq: outcome('seq') },
      in: { id: outcome('credit_entry'), account: outcome('merchant_account'), balanceAfter: sql`NULL`, seq: 'not a wallet line' },
    })}, ${c.evs.ref} AS (${walletPaymentEvents(succeeded, sql`${c.outcome.ref} o`)}
    ), ${c.deliveries.ref} AS (${deliveriesFor(sql`${c.evs.ref} ev`, { from: sql`${c.outcome.ref} o`, on: sql`o.id = ev.object_id`, url: outcome('callback_url') })})
    SELECT id, status, failure_code FROM ${c.ins.ref}`;
}

export type WalletPayments = MergedWrite<WalletPaymentItem, { id: string; status: string; failure_code: WalletFailure | null }>;

/** Wallet payments, merged in a batch: keyed by wallet, so one wallet's payments apply in arrival order. */
export const walletPayments: WalletPayments = {
  name: 'wallet payments',
  statement: walletPaymentsStatement(),
  columns: INPUT.parameters,
  key: (item) => present(item.base.wallet_id, 'wallet id'),
  // The statement takes its wallets in id order (`locked`), then its shards in key order (the
  // credit's ORDER BY); in a batch of several statements, the batch locks them first (db/lock-order.ts).
  locks: (item) => ({
    wallets: [present(item.base.wallet_id, 'wallet id')],
    shards: [[item.base.merchant_id, item.base.currency, item.shard]],
  }),
  lockedInOrder: true,
  id: (item) => item.base.id,
};
