import { type RawBuilder, sql } from 'kysely';
import { FAILURE_MESSAGES } from '../connectors/connector.ts';
import type { Db } from '../db/db.ts';
import type { TransferStatus } from '../db/schema.ts';
import { eventType, eventTypeCase, insertEvents } from '../events/store.ts';
import { eventPayload } from '../events/view.ts';
import { newEntryId, walletAccount } from '../ledger/accounts.ts';
import { postingCtes } from '../ledger/posting.ts';
import { type DebitMode, walletCredit, walletDebit } from '../ledger/wallet-balance.ts';
import { newId } from '../shared/ids.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';
import { lockWalletsSql } from '../wallets/store.ts';
import { deliveriesFor } from '../webhooks/store.ts';
import { type TransferRow, transferView } from './view.ts';

/** Why a transfer fails: decided inside the statement, on the locked wallet rows. */
export type TransferFailure = 'insufficient_funds' | 'wallet_inactive';

/** The transfer as it reads once the statement has run: succeeded, or failed for `failure`. */
export function transferOutcomeRow(base: TransferRow, failure: TransferFailure | null): TransferRow {
  return {
    ...base,
    status: failure ? 'failed' : 'succeeded',
    failure_code: failure,
    failure_message: failure ? FAILURE_MESSAGES[failure] : null,
  };
}

/** The source's debit and the destination's credit, both wallet lines with the balance they leave. */
function transferPosting(base: TransferRow, now: RawBuilder<unknown>): RawBuilder<unknown> {
  const amount = BigInt(base.amount);
  const source = walletAccount(base.source_wallet_id);
  const destination = walletAccount(base.destination_wallet_id);
  const currency = sql`${base.currency}`;
  return postingCtes(
    {
      from: sql`moved m CROSS JOIN credit c`,
      transactionId: newId('ledgerTransaction'),
      merchantId: sql`${base.merchant_id}`,
      sourceType: sql.lit('transfer'),
      sourceId: sql`${base.id}`,
      at: now,
      lines: [
        {
          id: newEntryId(source),
          account: source,
          currency,
          amount: sql`-${base.amount}::bigint`,
          balanceAfter: sql`m.source_balance`,
          seq: sql`m.source_seq`,
        },
        {
          id: newEntryId(destination),
          account: destination,
          currency,
          amount: sql`${base.amount}::bigint`,
          balanceAfter: sql`c.balance`,
          seq: sql`c.seq`,
        },
      ],
    },
    [
      { account: source, currency: base.currency, amount: -amount },
      { account: destination, currency: base.currency, amount },
    ],
  );
}

/** transfer.succeeded or transfer.failed, with the payload of the outcome chosen in SQL. */
function transferEvents(base: TransferRow, now: RawBuilder<unknown>): RawBuilder<unknown> {
  const payload = (failure: TransferFailure | null) => eventPayload(transferView(transferOutcomeRow(base, failure)));
  const object = { merchantId: sql`${base.merchant_id}`, objectId: sql`${base.id}`, livemode: sql`${base.livemode}::boolean`, at: now };
  return insertEvents(sql`ins i`, object, [
    {
      id: newId('event'),
      type: eventTypeCase(sql`i.status`, { succeeded: eventType('transfer', 'succeeded'), failed: eventType('transfer', 'failed') }),
      payload: sql<string>`(CASE coalesce(i.failure_code, '') WHEN '' THEN ${payload(null)}
        WHEN 'insufficient_funds' THEN ${payload('insufficient_funds')} ELSE ${payload('wallet_inactive')} END)`,
    },
  ]);
}

/** `INSERT INTO transfers … SELECT … FROM outcome o`: the row with the status the statement decided. */
function insertTransfer(base: TransferRow): RawBuilder<unknown> {
  return sql`INSERT INTO transfers (id, merchant_id, reference, request_fingerprint, status, amount, currency, source_wallet_id,
        destination_wallet_id, description, metadata, failure_code, failure_message, livemode, created_at)
      SELECT ${base.id}::text, ${base.merchant_id}::text, ${base.reference}::text, ${JSON.stringify(base.request_fingerprint)}::jsonb,
        CASE WHEN o.failure_code IS NULL THEN 'succeeded' ELSE 'failed' END, ${base.amount}::bigint, ${base.currency}::text,
        ${base.source_wallet_id}::text, ${base.destination_wallet_id}::text, ${base.description}::text,
        ${JSON.stringify(base.metadata)}::jsonb, o.failure_code,
        CASE o.failure_code WHEN 'insufficient_funds' THEN ${FAILURE_MESSAGES.insufficient_funds}::text
          WHEN 'wallet_inactive' THEN ${FAILURE_MESSAGES.wallet_inactive}::text END,
        ${base.livemode}::boolean, ${base.created_at}::timestamptz
      FROM outcome o`;
}

/**
 * A transfer in ONE statement (one round trip): both wallets locked, the source's conditional
 * debit, the destination's credit, the transfer row with its final status, the balanced posting,
 * the event and its deliveries. Data-modifying CTEs commit together, so a failure anywhere (a
 * taken reference: 23505 from the unique index) undoes everything, debit included.
 *
 * - `locked` takes both wallet rows FOR UPDATE in id order (wallets/) before the debit touches
 *   one: two transfers in opposite directions would otherwise each hold one row and wait for the other.
 *   `ready` counts the active ones, reading every locked row (a partial read would lock only one).
 * - The debit is the ledger's conditional UPDATE, further conditioned on both wallets being
 *   active, so a frozen destination is never credited and its source never debited.
 * - `moved` renames the debit's balance and seq: beside walletCredit's own columns they would be ambiguous.
 */
export function transferStatement(
  base: TransferRow,
  debit: DebitMode,
): RawBuilder<{ status: TransferStatus; failure_code: TransferFailure | null }> {
  const now = sql`${base.created_at}::timestamptz`;
  const bothActive = sql`(SELECT active FROM ready) = 2`;
  const debitSql = walletDebit(
    { walletId: base.source_wallet_id, merchantId: base.merchant_id, amount: BigInt(base.amount), now: base.created_at, when: bothActive },
    debit,
  );
  const credit = walletCredit({
    from: sql`moved m`,
    walletId: sql`${base.destination_wallet_id}`,
    amount: sql`${base.amount}::bigint`,
    where: sql`wallets.merchant_id = ${base.merchant_id}`,
    now: base.created_at,
  });
  return sql`
    WITH locked AS (${lockWalletsSql(base.merchant_id, [base.source_wallet_id, base.destination_wallet_id])}
    ), ready AS (SELECT count(*) FILTER (WHERE status = 'active') AS active FROM locked
    ), debit AS (${debitSql}
    ), moved AS (SELECT balance AS source_balance, seq AS source_seq FROM debit
    ), credit AS (${credit}
    ), outcome AS (
      SELECT CASE WHEN EXISTS (SELECT 1 FROM debit) THEN NULL
                  WHEN ${bothActive} THEN 'insufficient_funds' ELSE 'wallet_inactive' END AS failure_code
    ), ins AS (${insertTransfer(base)}
      RETURNING id, status, failure_code
    ), ${transferPosting(base, now)}, evs AS (${transferEvents(base, now)}
    ), deliveries AS (${deliveriesFor(sql`evs ev`, base.merchant_id, null, base.created_at)})
    SELECT status, failure_code FROM ins`;
}

export async function findTransfer(db: Db, merchantId: string, id: string) {
  return db.selectFrom('transfers').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
}

export async function findTransferByReference(db: Db, merchantId: string, reference: string) {
  return db.selectFrom('transfers').selectAll().where('merchant_id', '=', merchantId).where('reference', '=', reference).executeTakeFirst();
}

export interface TransferFilters {
  reference?: string;
  status?: TransferStatus;
  walletId?: string;
  createdGte?: Date;
  createdLte?: Date;
}

export async function listTransfers(db: Db, merchantId: string, filters: TransferFilters, page: PageRequest) {
  let q = db.selectFrom('transfers').selectAll().where('merchant_id', '=', merchantId);
  if (filters.reference !== undefined) q = q.where('reference', '=', filters.reference);
  if (filters.status !== undefined) q = q.where('status', '=', filters.status);
  const walletId = filters.walletId;
  if (walletId !== undefined) {
    q = q.where((eb) => eb.or([eb('source_wallet_id', '=', walletId), eb('destination_wallet_id', '=', walletId)]));
  }
  if (filters.createdGte !== undefined) q = q.where('created_at', '>=', filters.createdGte);
  if (filters.createdLte !== undefined) q = q.where('created_at', '<=', filters.createdLte);
  return fetchPage(q, 'id', page);
}
