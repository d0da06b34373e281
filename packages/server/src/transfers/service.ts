import type { Static } from 'typebox';
import { checkAmount, checkCurrency, checkReference } from '../charges/input.ts';
import { loadWallet } from '../charges/prepare.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { GroupCommit } from '../db/group-commit.ts';
import type { AuthContext } from '../oauth/service.ts';
import type { Clock } from '../shared/clock.ts';
import { ApiError, notFound } from '../shared/errors.ts';
import { fingerprint } from '../shared/fingerprint.ts';
import { isIdOf, newId } from '../shared/ids.ts';
import type { PageRequest } from '../shared/pagination.ts';
import { type Created, referenceConflict, sameRequest } from '../shared/replay.ts';
import type { CreateTransferBody } from './schemas.ts';
import * as store from './store.ts';
import { type TransferRow, type TransferView, transferView } from './view.ts';

type TransferBody = Static<typeof CreateTransferBody>;

export function createTransferService(deps: {
  db: Db;
  groupCommit: GroupCommit;
  /** The transfers' merged write (store.ts), chosen in deps.ts. */
  writes: { transfers: store.Transfers };
  clock: Clock;
  config: Config;
  hashKey: Buffer;
}) {
  const { db, clock, config, hashKey } = deps;

  /**
   * Validates the request and renders the transfer as it will be written (the status is decided
   * by the statement). Throws the contract's 400 before anything is stored: the reference stays free.
   */
  async function prepare(auth: AuthContext, body: TransferBody, now: Date): Promise<TransferRow> {
    const reference = checkReference(body.reference);
    const currency = checkCurrency(body.currency, config);
    const amountMinor = checkAmount(body.amount, currency, config);
    await loadWallet(db, auth, body.source_wallet_id, currency, 'source_wallet_id');
    if (body.destination_wallet_id === body.source_wallet_id) {
      throw new ApiError('parameter_invalid', 'destination_wallet_id must name another wallet than source_wallet_id.', {
        param: 'destination_wallet_id',
      });
    }
    await loadWallet(db, auth, body.destination_wallet_id, currency, 'destination_wallet_id');
    const description = body.description ?? null;
    const metadata = body.metadata ?? {};
    const fields = {
      amount: amountMinor.toString(),
      currency,
      source_wallet_id: body.source_wallet_id,
      destination_wallet_id: body.destination_wallet_id,
      description,
      metadata,
    };
    return {
      id: newId('transfer'),
      merchant_id: auth.merchantId,
      reference,
      request_fingerprint: fingerprint(hashKey, fields),
      status: 'failed',
      amount: amountMinor.toString(),
      currency,
      source_wallet_id: body.source_wallet_id,
      destination_wallet_id: body.destination_wallet_id,
      description,
      metadata,
      failure_code: null,
      failure_message: null,
      livemode: auth.livemode,
      created_at: now,
    };
  }

  /** Same reference again: the stored transfer (200), or 409 naming the fields that differ. */
  async function replay(auth: AuthContext, base: TransferRow): Promise<Created<TransferView>> {
    const existing = await store.findTransferByReference(db, auth.merchantId, base.reference);
    if (!existing) throw new Error('reference taken but no transfer found');
    const stored = existing.request_fingerprint as Record<string, string>;
    const incoming = base.request_fingerprint as Record<string, string>;
    if (!sameRequest(stored, incoming)) throw referenceConflict(base.reference, existing.id, stored, incoming);
    return { created: false, object: transferView(existing) };
  }

  return {
    /** One statement moves the money and records everything (store.transfers, merged with the lane's other transfers). */
    async createTransfer(auth: AuthContext, body: TransferBody): Promise<Created<TransferView>> {
      const base = await prepare(auth, body, clock.now());
      let outcome: { failure_code: store.TransferFailure | null };
      // The source wallet's lane: its debits, by payment or transfer, keep their arrival order.
      const lane = deps.groupCommit.lane(base.source_wallet_id);
      try {
        outcome = await lane.merge(deps.writes.transfers, store.transferItem(base));
      } catch (error) {
        if (isUniqueViolation(error)) return replay(auth, base);
        throw error;
      }
      return { created: true, object: transferView(store.transferOutcomeRow(base, outcome.failure_code)) };
    },

    async getTransfer(auth: AuthContext, id: string): Promise<TransferView> {
      const row = isIdOf('transfer', id) ? await store.findTransfer(db, auth.merchantId, id) : undefined;
      if (!row) throw notFound();
      return transferView(row);
    },

    async listTransfers(auth: AuthContext, filters: store.TransferFilters, page: PageRequest) {
      const { rows, hasMore } = await store.listTransfers(db, auth.merchantId, filters, page);
      return { object: 'list' as const, data: rows.map(transferView), has_more: hasMore };
    },
  };
}

export type TransferService = ReturnType<typeof createTransferService>;
