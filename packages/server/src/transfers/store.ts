import { type RawBuilder, sql } from 'kysely';
import { columnOf, ctes } from '../db/cte.ts';
import type { Db } from '../db/db.ts';
import type { MergedWrite } from '../db/group-commit.ts';
import { type MergedColumn, mergedInput } from '../db/merged-input.ts';
import type { TransferStatus } from '../db/schema.ts';
import { eventType, insertEvents } from '../events/store.ts';
import { eventPayload } from '../events/view.ts';
import { newEntryId, walletAccount } from '../ledger/accounts.ts';
import { postingCtes } from '../ledger/posting.ts';
import { walletCredit, walletDebit } from '../ledger/wallet-balance.ts';
import { FAILURE_MESSAGES, failureMessageSql } from '../shared/failures.ts';
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

/** A column of the `outcome` row (`o`): the transfer's input and what the statement decided for it. */
const outcome = columnOf('o');

const TRANSFER_FAILURES: readonly TransferFailure[] = ['insufficient_funds', 'wallet_inactive'];

/** transfer.succeeded or transfer.failed, with the payload of the outcome chosen in SQL. */
function transferEvents(from: RawBuilder<unknown>): RawBuilder<unknown> {
  const object = { merchantId: outcome('merchant_id'), objectId: outcome('id'), livemode: outcome('livemode'), at: outcome('at') };
  return insertEvents(from, object, [
    {
      id: outcome('event_id'),
      type: sql<string>`CASE WHEN o.failure_code IS NULL THEN ${sql.lit(eventType('transfer', 'succeeded'))}
          ELSE ${sql.lit(eventType('transfer', 'failed'))} END`,
      payload: sql<string>`CASE coalesce(o.failure_code, '') WHEN '' THEN o.succeeded_data WHEN 'insufficient_funds' THEN o.insufficient_data
          ELSE o.inactive_data END`,
    },
  ]);
}

/**
 * Transfers (group-commit.ts MergedWrite), ONE statement for a batch's transfers: for each, both
 * wallets locked, the source's conditional debit, the destination's credit, the transfer row
 * with its final status, the balanced posting, the event and its deliveries. Data-modifying CTEs
 * commit together, so a failure anywhere (a taken reference: 23505 from the unique index) undoes
 * everything, debits included.
 *
 * - Every wallet of the statement is one transfer's source or destination, never two's (the key:
 *   both wallets), so each row changes once and every transfer sees the moves of the earlier
 *   statements of its batch.
 * - `locked` takes all the wallet rows FOR UPDATE in id order (wallets/) before a debit touches
 *   one: two transfers in opposite directions would otherwise each hold one row and wait for
 *   the other. `ready` counts each transfer's active wallets, reading every locked row.
 * - A transfer debits its source only when both its wallets are active and the source covers it
 *   (ledger/wallet-balance.ts), and credits its destination only when it did, so a frozen
 *   destination is never credited and its source never debited.
 */
function transfersStatement(): RawBuilder<{ id: string; status: TransferStatus; failure_code: TransferFailure | null }> {
  const c = ctes('input', 'locked', 'ready', 'debit', 'credit', 'outcome', 'ins', 'ltx', 'entries', 'evs', 'deliveries');
  return sql`
    WITH ${c.input.ref} AS (${INPUT.select}
    ), ${c.locked.ref} AS (${lockWalletsSql({ ids: sql`(SELECT array_agg(i.source) || array_agg(i.destination) FROM ${c.input.ref} i)`, after: null })}
    ), ${c.ready.ref} AS (
      SELECT i.id, count(*) FILTER (WHERE l.status = 'active') AS active
      FROM ${c.input.ref} i JOIN ${c.locked.ref} l ON l.merchant_id = i.merchant_id AND l.id IN (i.source, i.destination)
      GROUP BY i.id
    ), ${c.debit.ref} AS (${walletDebit({
      from: sql`${c.input.ref} i JOIN ${c.ready.ref} r ON r.id = i.id AND r.active = 2`,
      walletId: sql`i.source`,
      merchantId: sql`i.merchant_id`,
      amount: sql`i.amount`,
      now: sql`i.at`,
      returning: sql`i.id`,
    })}
    ), ${c.credit.ref} AS (${walletCredit({
      from: sql`${c.debit.ref} d JOIN ${c.input.ref} i ON i.id = d.id`,
      walletId: sql`i.destination`,
      amount: sql`i.amount`,
      where: sql`wallets.merchant_id = i.merchant_id`,
      now: sql`i.at`,
      returning: sql`i.id`,
    })}
    ), ${c.outcome.ref} AS (
      SELECT i.*, d.balance AS source_balance, d.seq AS source_seq, c.balance AS destination_balance, c.seq AS destination_seq,
        CASE WHEN d.id IS NOT NULL THEN NULL WHEN r.active = 2 THEN 'insufficient_funds' ELSE 'wallet_inactive' END AS failure_code
      FROM ${c.input.ref} i LEFT JOIN ${c.ready.ref} r ON r.id = i.id LEFT JOIN ${c.debit.ref} d ON d.id = i.id
        LEFT JOIN ${c.credit.ref} c ON c.id = i.id
    ), ${c.ins.ref} AS (
      INSERT INTO transfers (id, merchant_id, reference, request_fingerprint, status, amount, currency, source_wallet_id,
        destination_wallet_id, description, metadata, failure_code, failure_message, livemode, created_at)
      SELECT o.id, o.merchant_id, o.reference, o.fingerprint, CASE WHEN o.failure_code IS NULL THEN 'succeeded' ELSE 'failed' END,
        o.amount, o.currency, o.source, o.destination, o.description, o.metadata, o.failure_code,
        ${failureMessageSql(outcome('failure_code'), TRANSFER_FAILURES)}, o.livemode, o.at
      FROM ${c.outcome.ref} o
      RETURNING id, status, failure_code
    ), ${postingCtes({
      names: { transactions: c.ltx, entries: c.entries },
      from: sql`${c.outcome.ref} o WHERE o.failure_code IS NULL`,
      transactionId: outcome('ltx'),
      merchantId: outcome('merchant_id'),
      sourceType: sql.lit('transfer'),
      sourceId: outcome('id'),
      at: outcome('at'),
      currency: outcome('currency'),
      amount: outcome('amount'),
      out: {
        id: outcome('source_entry'),
        account: outcome('source_account'),
        balanceAfter: outcome('source_balance'),
        seq: outcome('source_seq'),
      },
      in: {
        id: outcome('destination_entry'),
        account: outcome('destination_account'),
        balanceAfter: outcome('destination_balance'),
        seq: outcome('destination_seq'),
      },
    })}, ${c.evs.ref} AS (${transferEvents(sql`${c.outcome.ref} o`)}
    ), ${c.deliveries.ref} AS (${deliveriesFor(sql`${c.evs.ref} ev`, { from: sql`${c.outcome.ref} o`, on: sql`o.id = ev.object_id`, url: sql`NULL::text` })})
    SELECT id, status, failure_code FROM ${c.ins.ref}`;
}

export type Transfers = MergedWrite<TransferItem, { id: string; status: TransferStatus; failure_code: TransferFailure | null }>;

/** Transfers, merged in a batch: keyed by both wallets, so each wallet's moves apply in arrival order. */
export const transfers: Transfers = {
  name: 'transfers',
  statement: transfersStatement(),
  columns: INPUT.parameters,
  key: (item) => [item.base.source_wallet_id, item.base.destination_wallet_id],
  id: (item) => item.base.id,
  // Its wallets are locked in id order; two lanes' transfers, each statement committing alone, never deadlock.
  alone: true,
  locks: (item) => ({ wallets: [item.base.source_wallet_id, item.base.destination_wallet_id] }),
  lockedInOrder: true,
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
