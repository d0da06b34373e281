import { sql } from 'kysely';
import type { ChargeRow } from '../charges/view.ts';
import type { Db } from '../db/db.ts';
import { deliveriesFromEvents } from '../events/outbox.ts';
import { newId } from '../shared/ids.ts';
import { present } from '../shared/invariant.ts';
import { merchantAccount, providerAccount, walletAccount } from './accounts.ts';
import { assertBalanced } from './service.ts';

export interface SettlementStatement {
  charge: ChargeRow;
  status: 'succeeded' | 'failed';
  failureCode: string | null;
  failureMessage: string | null;
  providerReference: string | null;
  now: Date;
  /** JSON of `{ object }` for the `<kind>.<status>` event, rendered by the caller. */
  payload: string;
}

/**
 * pending → final in ONE statement: the status change (only from pending: a final state never
 * changes), on success the balanced posting from the provider's account to the merchant's
 * funds (payment) or the wallet (top-up, whose cached balance moves in the same statement),
 * the event and its outbox rows. Returns the updated row, or undefined if it was already final.
 */
export async function runSettlement(db: Db, p: SettlementStatement): Promise<ChargeRow | undefined> {
  const { charge } = p;
  const amount = BigInt(charge.amount);
  const source = providerAccount(charge.provider, charge.method_type, charge.currency);
  const target =
    charge.kind === 'payment'
      ? merchantAccount(charge.merchant_id, charge.currency)
      : walletAccount(present(charge.wallet_id, 'top-up wallet_id'));
  assertBalanced([
    { account: source, currency: charge.currency, amount: -amount },
    { account: target, currency: charge.currency, amount },
  ]);
  const now = sql`${p.now}::timestamptz`;
  const ltx = newId('ledgerTransaction');
  const result = await sql<ChargeRow>`
    WITH fin AS (
      UPDATE charges SET status = ${p.status}, failure_code = ${p.failureCode}, failure_message = ${p.failureMessage},
        provider_reference = coalesce(${p.providerReference}::text, provider_reference),
        completed_at = ${now}, updated_at = ${now}, lease_until = NULL, next_check_at = NULL
      WHERE id = ${charge.id} AND status = 'pending'
      RETURNING *
    ), credit AS (
      UPDATE wallets SET balance = balance + fin.amount, updated_at = ${now}
      FROM fin WHERE wallets.id = fin.wallet_id AND fin.kind = 'topup' AND fin.status = 'succeeded'
      RETURNING wallets.balance
    ), ltx AS (
      INSERT INTO ledger_transactions (id, merchant_id, source_type, source_id, created_at)
      SELECT ${ltx}, fin.merchant_id, fin.kind, fin.id, ${now} FROM fin WHERE fin.status = 'succeeded'
    ), entries AS (
      INSERT INTO ledger_entries (id, transaction_id, account, currency, amount, balance_after, source_type, source_id, created_at)
      SELECT ${newId('walletTransaction')}, ${ltx}, ${source}, fin.currency, -fin.amount, NULL, fin.kind, fin.id, ${now}
      FROM fin WHERE fin.status = 'succeeded'
      UNION ALL
      SELECT ${newId('walletTransaction')}, ${ltx}, ${target}, fin.currency, fin.amount, (SELECT balance FROM credit), fin.kind, fin.id, ${now}
      FROM fin WHERE fin.status = 'succeeded'
    ), evs AS (
      INSERT INTO events (id, merchant_id, type, object_id, data, livemode, created_at)
      SELECT ${newId('event')}, fin.merchant_id, fin.kind || '.' || fin.status, fin.id, ${p.payload}::json, fin.livemode, ${now}
      FROM fin
      RETURNING id, type
    ), deliveries AS (${deliveriesFromEvents(charge.merchant_id, charge.callback_url, p.now)})
    SELECT * FROM fin`.execute(db);
  return result.rows[0];
}
