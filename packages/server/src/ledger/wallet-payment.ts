import { sql } from 'kysely';
import type { Db } from '../db/db.ts';
import { deliveriesFromEvents } from '../events/outbox.ts';
import { present } from '../shared/invariant.ts';
import { merchantAccount, walletAccount } from './accounts.ts';
import { assertBalanced } from './service.ts';

/**
 * A wallet payment in ONE statement (one round trip): the wallet debit, the charge with its
 * final status, the balanced ledger posting, both events and their outbox rows. Data-modifying
 * CTEs see one snapshot and commit together, so a failure anywhere undoes everything.
 *
 * - The debit is one conditional UPDATE (active, balance >= amount;
 *   the row lock serialises concurrent debits; CHECK (balance >= 0) is the backstop).
 * - The charge row is a plain INSERT: if another request holds the reference, the unique index
 *   raises 23505 and the whole statement, debit included, is rolled back. (No NOT EXISTS
 *   pre-check: on a database without statistics it was planned on the wrong index and scanned
 *   every payment of the merchant; the index decides anyway.)
 * - Event payloads are rendered by the caller for each possible outcome and chosen here.
 */
export interface WalletPaymentStatement {
  chargeId: string;
  merchantId: string;
  walletId: string;
  reference: string;
  amountMinor: bigint;
  currency: string;
  livemode: boolean;
  now: Date;
  fingerprint: string;
  method: string;
  customer: string | null;
  description: string | null;
  metadata: string;
  callbackUrl: string | null;
  ids: { ledgerTransaction: string; debitEntry: string; creditEntry: string; createdEvent: string; finalEvent: string };
  failureMessages: { insufficient_funds: string; wallet_inactive: string };
  /** See Config.negativeControlRmwDebit: the double-spend test's deliberately broken debit. */
  negativeControlRmwDebit?: boolean;
  /** JSON of the object for each event: created (pending), and each final outcome. */
  payloads: { created: string; succeeded: string; insufficient_funds: string; wallet_inactive: string };
}

/**
 * WRONG ON PURPOSE (negative control only): reads the balance without a lock and checks it in
 * JavaScript, then the statement writes the absolute result. Concurrent debits lose updates.
 */
async function readModifyWrite(db: Db, walletId: string, amount: bigint) {
  const row = await db.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirst();
  const balance = BigInt(row?.balance ?? '0');
  const ok = balance >= amount;
  return { debit: sql`${(ok ? balance - amount : balance).toString()}::bigint`, covered: ok ? sql`true` : sql`false` };
}

export async function runWalletPayment(db: Db, p: WalletPaymentStatement) {
  const amount = p.amountMinor.toString();
  assertBalanced([
    { account: walletAccount(p.walletId), currency: p.currency, amount: -p.amountMinor },
    { account: merchantAccount(p.merchantId, p.currency), currency: p.currency, amount: p.amountMinor },
  ]);
  // Parameters in SELECT lists have no type of their own: cast them once here.
  const now = sql`${p.now}::timestamptz`;
  const livemode = sql`${p.livemode}::boolean`;
  const { debit, covered } = p.negativeControlRmwDebit
    ? await readModifyWrite(db, p.walletId, p.amountMinor)
    : { debit: sql`balance - ${amount}::bigint`, covered: sql`balance >= ${amount}::bigint` };
  const result = await sql<{ status: string; failure_code: string | null }>`
    WITH w AS (
      SELECT status FROM wallets WHERE id = ${p.walletId} AND merchant_id = ${p.merchantId}
    ), debit AS (
      UPDATE wallets SET balance = ${debit}, updated_at = ${now}
      WHERE id = ${p.walletId} AND merchant_id = ${p.merchantId} AND status = 'active' AND ${covered}
      RETURNING balance
    ), outcome AS (
      SELECT CASE WHEN EXISTS (SELECT 1 FROM debit) THEN NULL
                  WHEN (SELECT status FROM w) = 'active' THEN 'insufficient_funds' ELSE 'wallet_inactive' END AS failure_code
    ), ins AS (
      INSERT INTO charges (id, kind, merchant_id, reference, request_fingerprint, status, amount, currency, method_type, method,
                           wallet_id, customer, description, metadata, callback_url, failure_code, failure_message, provider,
                           livemode, created_at, updated_at, completed_at)
      SELECT ${p.chargeId}, 'payment', ${p.merchantId}, ${p.reference}, ${p.fingerprint}::jsonb,
             CASE WHEN o.failure_code IS NULL THEN 'succeeded' ELSE 'failed' END, ${amount}::bigint, ${p.currency}, 'wallet',
             ${p.method}::jsonb, ${p.walletId}, ${p.customer}::jsonb, ${p.description}, ${p.metadata}::jsonb, ${p.callbackUrl},
             o.failure_code,
             CASE o.failure_code WHEN 'insufficient_funds' THEN ${p.failureMessages.insufficient_funds}
                                 WHEN 'wallet_inactive' THEN ${p.failureMessages.wallet_inactive} END,
             'purse', ${livemode}, ${now}, ${now}, ${now}
      FROM outcome o
      RETURNING id, status, failure_code
    ), ltx AS (
      INSERT INTO ledger_transactions (id, merchant_id, source_type, source_id, created_at)
      SELECT ${p.ids.ledgerTransaction}, ${p.merchantId}, 'payment', ${p.chargeId}, ${now} FROM debit
    ), entries AS (
      INSERT INTO ledger_entries (id, transaction_id, account, currency, amount, balance_after, source_type, source_id, created_at)
      SELECT ${p.ids.debitEntry}, ${p.ids.ledgerTransaction}, ${walletAccount(p.walletId)}, ${p.currency}, -${amount}::bigint,
             d.balance, 'payment', ${p.chargeId}, ${now} FROM debit d
      UNION ALL
      SELECT ${p.ids.creditEntry}, ${p.ids.ledgerTransaction}, ${merchantAccount(p.merchantId, p.currency)}, ${p.currency},
             ${amount}::bigint, NULL, 'payment', ${p.chargeId}, ${now} FROM debit
    ), evs AS (
      INSERT INTO events (id, merchant_id, type, object_id, data, livemode, created_at)
      SELECT ${p.ids.createdEvent}, ${p.merchantId}, 'payment.created', ${p.chargeId}, ${p.payloads.created}::json, ${livemode}, ${now} FROM ins
      UNION ALL
      SELECT ${p.ids.finalEvent}, ${p.merchantId}, 'payment.' || i.status, ${p.chargeId},
             (CASE coalesce(i.failure_code, '') WHEN '' THEN ${p.payloads.succeeded}
                  WHEN 'insufficient_funds' THEN ${p.payloads.insufficient_funds} ELSE ${p.payloads.wallet_inactive} END)::json,
             ${livemode}, ${now}
      FROM ins i
      RETURNING id, type
    ), deliveries AS (${deliveriesFromEvents(p.merchantId, p.callbackUrl, p.now)}
    )
    SELECT status, failure_code FROM ins`.execute(db);
  return present(result.rows[0], 'wallet payment row');
}
