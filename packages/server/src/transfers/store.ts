import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../db/db.ts';
import { type MergedColumn, type MergedWrite, mergedInput } from '../db/group-commit.ts';
import type { TransferStatus } from '../db/schema.ts';
import { eventType, eventTypeCase, insertEvents } from '../events/store.ts';
import { eventPayload } from '../events/view.ts';
import { newEntryId, walletAccount } from '../ledger/accounts.ts';
import { postingCtes, postingEachCtes } from '../ledger/posting.ts';
import { type DebitMode, walletCredit, walletDebit, walletDebitEach } from '../ledger/wallet-balance.ts';
import { FAILURE_MESSAGES } from '../shared/failures.ts';
import { newId } from '../shared/ids.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';
import { lockWalletsEachSql, lockWalletsSql } from '../wallets/store.ts';
import { deliveriesFor, deliveriesForEach } from '../webhooks/store.ts';
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

/** A transfer as one item of the merged statement: the row as rendered, and the ids its posting and event take. */
export interface TransferItem {
  base: TransferRow;
  ids: { ledgerTransaction: string; sourceEntry: string; destinationEntry: string; event: string };
}

export function transferItem(base: TransferRow): TransferItem {
  return {
    base,
    ids: {
      ledgerTransaction: newId('ledgerTransaction'),
      sourceEntry: newEntryId(walletAccount(base.source_wallet_id)),
      destinationEntry: newEntryId(walletAccount(base.destination_wallet_id)),
      event: newId('event'),
    },
  };
}

const payloadOf = (base: TransferRow, failure: TransferFailure | null) => eventPayload(transferView(transferOutcomeRow(base, failure)));

const INPUT = mergedInput<TransferItem>([
  ['id', 'text', (t) => t.base.id],
  ['merchant_id', 'text', (t) => t.base.merchant_id],
  ['reference', 'text', (t) => t.base.reference],
  ['fingerprint', 'jsonb', (t) => JSON.stringify(t.base.request_fingerprint)],
  ['amount', 'bigint', (t) => t.base.amount],
  ['currency', 'text', (t) => t.base.currency],
  ['source', 'text', (t) => t.base.source_wallet_id],
  ['destination', 'text', (t) => t.base.destination_wallet_id],
  ['description', 'text', (t) => t.base.description],
  ['metadata', 'jsonb', (t) => JSON.stringify(t.base.metadata)],
  ['livemode', 'boolean', (t) => t.base.livemode],
  ['at', 'timestamptz', (t) => t.base.created_at.toISOString()],
  ['ltx', 'text', (t) => t.ids.ledgerTransaction],
  ['source_entry', 'text', (t) => t.ids.sourceEntry],
  ['destination_entry', 'text', (t) => t.ids.destinationEntry],
  ['source_account', 'text', (t) => walletAccount(t.base.source_wallet_id)],
  ['destination_account', 'text', (t) => walletAccount(t.base.destination_wallet_id)],
  ['event_id', 'text', (t) => t.ids.event],
  ['succeeded_data', 'text', (t) => payloadOf(t.base, null)],
  ['insufficient_data', 'text', (t) => payloadOf(t.base, 'insufficient_funds')],
  ['inactive_data', 'text', (t) => payloadOf(t.base, 'wallet_inactive')],
] satisfies MergedColumn<TransferItem>[]);

/** Column `name` of the outcome row `o`. */
const o = (name: string) => sql.ref(`o.${name}`) as RawBuilder<string>;

/**
 * Transfers as ONE statement for many (group-commit.ts MergedWrite): what transferStatement does
 * for one, for each row of its array parameters. Every wallet of the statement is one transfer's
 * source or destination, never two's (the key: both wallets), so each row changes once and every
 * transfer sees the moves of the earlier statements of its batch. All the wallets are locked
 * first, in id order; a transfer debits its source only when both its wallets are active and the
 * source covers it, and credits its destination only when it did.
 */
const transfersStatement: RawBuilder<{ id: string; status: TransferStatus; failure_code: TransferFailure | null }> = sql`
    WITH input AS (${INPUT.select}
    ), locked AS (${lockWalletsEachSql({
      ids: sql`(SELECT array_agg(i.source) || array_agg(i.destination) FROM input i)`,
      after: sql`true`,
    })}
    ), ready AS (
      SELECT i.id, count(*) FILTER (WHERE l.status = 'active') AS active
      FROM input i JOIN locked l ON l.merchant_id = i.merchant_id AND l.id IN (i.source, i.destination)
      GROUP BY i.id
    ), debit AS (${walletDebitEach({
      from: sql`input i JOIN ready r ON r.id = i.id AND r.active = 2`,
      walletId: sql`i.source`,
      merchantId: sql`i.merchant_id`,
      amount: sql`i.amount`,
      now: sql`i.at`,
      returning: sql`i.id`,
    })}
    ), credit AS (${walletCredit({
      from: sql`debit d JOIN input i ON i.id = d.id`,
      walletId: sql`i.destination`,
      amount: sql`i.amount`,
      where: sql`wallets.merchant_id = i.merchant_id`,
      now: sql`i.at`,
      returning: sql`i.id`,
    })}
    ), outcome AS (
      SELECT i.*, d.balance AS source_balance, d.seq AS source_seq, c.balance AS destination_balance, c.seq AS destination_seq,
        CASE WHEN d.id IS NOT NULL THEN NULL WHEN r.active = 2 THEN 'insufficient_funds' ELSE 'wallet_inactive' END AS failure_code
      FROM input i LEFT JOIN ready r ON r.id = i.id LEFT JOIN debit d ON d.id = i.id LEFT JOIN credit c ON c.id = i.id
    ), ins AS (
      INSERT INTO transfers (id, merchant_id, reference, request_fingerprint, status, amount, currency, source_wallet_id,
        destination_wallet_id, description, metadata, failure_code, failure_message, livemode, created_at)
      SELECT o.id, o.merchant_id, o.reference, o.fingerprint, CASE WHEN o.failure_code IS NULL THEN 'succeeded' ELSE 'failed' END,
        o.amount, o.currency, o.source, o.destination, o.description, o.metadata, o.failure_code,
        CASE o.failure_code WHEN 'insufficient_funds' THEN ${sql.lit(FAILURE_MESSAGES.insufficient_funds)}
          WHEN 'wallet_inactive' THEN ${sql.lit(FAILURE_MESSAGES.wallet_inactive)} END,
        o.livemode, o.at
      FROM outcome o
      RETURNING id, status, failure_code
    ), ${postingEachCtes({
      from: sql`outcome o WHERE o.failure_code IS NULL`,
      transactionId: o('ltx'),
      merchantId: o('merchant_id'),
      sourceType: sql.lit('transfer'),
      sourceId: o('id'),
      at: o('at'),
      currency: o('currency'),
      amount: o('amount'),
      out: { id: o('source_entry'), account: o('source_account'), balanceAfter: o('source_balance'), seq: o('source_seq') },
      in: {
        id: o('destination_entry'),
        account: o('destination_account'),
        balanceAfter: o('destination_balance'),
        seq: o('destination_seq'),
      },
    })}, evs AS (${insertEvents(sql`outcome o`, { merchantId: o('merchant_id'), objectId: o('id'), livemode: o('livemode'), at: o('at') }, [
      {
        id: o('event_id'),
        type: sql<string>`CASE WHEN o.failure_code IS NULL THEN ${sql.lit(eventType('transfer', 'succeeded'))}
          ELSE ${sql.lit(eventType('transfer', 'failed'))} END`,
        payload: sql<string>`CASE coalesce(o.failure_code, '') WHEN '' THEN o.succeeded_data WHEN 'insufficient_funds' THEN o.insufficient_data
          ELSE o.inactive_data END`,
      },
    ])}
    ), deliveries AS (${deliveriesForEach(sql`evs ev`, { from: sql`outcome o`, on: sql`o.id = ev.object_id`, url: sql`NULL::text` })})
    SELECT id, status, failure_code FROM ins`;

/** Transfers, merged in a batch: keyed by both wallets, so each wallet's moves apply in arrival order. */
export const transfers: MergedWrite<TransferItem, { id: string; status: TransferStatus; failure_code: TransferFailure | null }> = {
  name: 'transfers',
  statement: transfersStatement,
  columns: INPUT.parameters,
  key: (item) => [item.base.source_wallet_id, item.base.destination_wallet_id],
  id: (item) => item.base.id,
  // Its wallets are locked in id order; two lanes' transfers, each statement committing alone, never deadlock.
  alone: true,
};

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
