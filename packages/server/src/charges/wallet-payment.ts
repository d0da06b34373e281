import { type RawBuilder, sql } from 'kysely';
import { FAILURE_MESSAGES } from '../connectors/connector.ts';
import { eventType, eventTypeCase, insertEvents } from '../events/store.ts';
import { eventPayload } from '../events/view.ts';
import { merchantAccount, newEntryId, walletAccount } from '../ledger/accounts.ts';
import { merchantCredit } from '../ledger/merchant-balance.ts';
import { postingCtes } from '../ledger/posting.ts';
import { type DebitMode, walletDebit } from '../ledger/wallet-balance.ts';
import { newId } from '../shared/ids.ts';
import { present } from '../shared/invariant.ts';
import { walletStatusSql } from '../wallets/store.ts';
import { deliveriesFor } from '../webhooks/store.ts';
import { chargeValues, insertCharge } from './store.ts';
import { type ChargeRow, chargeView } from './view.ts';

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
