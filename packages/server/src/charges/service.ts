import type { Config } from '../config.ts';
import { type ConnectorRegistry, routeOf } from '../connectors/registry.ts';
import type { Db } from '../db/db.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { GroupCommit } from '../db/group-commit.ts';
import type { ChargeKind } from '../db/schema.ts';
import { eventType } from '../events/store.ts';
import { eventPayload } from '../events/view.ts';
import { creditShard } from '../ledger/merchant-balance.ts';
import type { AuthContext } from '../oauth/service.ts';
import type { Clock } from '../shared/clock.ts';
import { notFound } from '../shared/errors.ts';
import { FAILURE_MESSAGES, type FailureCode } from '../shared/failures.ts';
import { isIdOf, newId } from '../shared/ids.ts';
import { present } from '../shared/invariant.ts';
import type { PageRequest } from '../shared/pagination.ts';
import { type Created, referenceConflict, sameRequest } from '../shared/replay.ts';
import { type ChargeBody, type PreparedCharge, pendingRow, prepareCharge } from './prepare.ts';
import { resumeClaimed } from './resume-claimed.ts';
import { LEASE_MS, type Settlement } from './settlement.ts';
import { chargeLaneKey, claimCharge } from './store/create.ts';
import * as store from './store/read.ts';
import {
  INTERNAL_PROVIDER,
  newWalletPaymentIds,
  type WalletFailure,
  type WalletPayments,
  walletPaymentRow,
} from './store/wallet-payments.ts';
import { type ChargeRow, type ChargeView, chargeView } from './view.ts';

/** Provider name of a charge no connector serves: it fails at once with provider_error. */
const NO_PROVIDER = 'unconfigured';

export function createChargeService(deps: {
  db: Db;
  /** Point reads of charges, batched (store.createChargeReader). */
  reader: store.ChargeReader;
  /** The wallet payments' merged write (store/wallet-payments.ts), chosen in deps.ts. */
  writes: { walletPayments: WalletPayments };
  groupCommit: GroupCommit;
  clock: Clock;
  config: Config;
  hashKey: Buffer;
  registry: ConnectorRegistry;
  settlement: Settlement;
}) {
  const { db, reader, clock, config, registry, settlement } = deps;

  /** The connector that serves this means, network and mode, by name; the name stays with the charge. */
  function providerOf(auth: AuthContext, prepared: PreparedCharge): string {
    const method = present(prepared.providerMethod, 'provider method');
    return registry.route(routeOf(method, auth.livemode, config.mobileMoneyRoutes))?.name ?? NO_PROVIDER;
  }

  /** Refusals that need no provider call: no provider configured, or a top-up to a frozen wallet. */
  function immediateFailure(provider: string, prepared: PreparedCharge): FailureCode | null {
    if (registry.get(provider) === null) return 'provider_error';
    if (prepared.kind === 'topup' && !prepared.walletActive) return 'wallet_inactive';
    return null;
  }

  /**
   * The claim, in one statement merged with the lane's other claims (store/create.ts): the
   * pending charge and its created event, or, when no provider call is needed, the failed charge
   * with both events. Undefined: the reference is taken.
   */
  async function claim(auth: AuthContext, prepared: PreparedCharge, now: Date): Promise<ChargeRow | undefined> {
    const provider = providerOf(auth, prepared);
    const id = newId(prepared.kind === 'payment' ? 'payment' : 'topup');
    const lease = new Date(now.getTime() + LEASE_MS);
    const expiresAt = prepared.methodType === 'mobile_money' ? new Date(now.getTime() + config.mobileMoneyExpiryS * 1000) : null;
    const pending: ChargeRow = {
      ...pendingRow(auth, prepared, id, now, provider),
      expires_at: expiresAt,
      lease_until: lease,
      next_check_at: lease,
    };
    const lane = deps.groupCommit.lane(chargeLaneKey(pending));
    const created = { id: newId('event'), type: eventType(prepared.kind, 'created'), payload: eventPayload(chargeView(pending)) };
    const failureCode = immediateFailure(provider, prepared);
    if (!failureCode) return claimCharge(lane, pending, { created });
    const failedRow: ChargeRow = {
      ...pending,
      status: 'failed',
      failure_code: failureCode,
      failure_message: FAILURE_MESSAGES[failureCode],
      completed_at: now,
      lease_until: null,
      next_check_at: null,
    };
    const failed = { id: newId('event'), type: eventType(prepared.kind, 'failed'), payload: eventPayload(chargeView(failedRow)) };
    return claimCharge(lane, failedRow, { created, failed });
  }

  /**
   * A wallet payment: one statement does the debit, the charge, the posting and both events
   * (store/wallet-payments.ts), merged with the lane's other wallet payments. A taken reference
   * surfaces as a unique violation: replay.
   */
  async function payFromWallet(auth: AuthContext, prepared: PreparedCharge, now: Date): Promise<Created<ChargeView>> {
    const base = pendingRow(auth, prepared, newId('payment'), now, INTERNAL_PROVIDER);
    let outcome: { failure_code: WalletFailure | null };
    // The wallet's lane: its debits run in arrival order, and no other lane's batch locks it.
    const lane = deps.groupCommit.lane(present(prepared.walletId, 'wallet id'));
    try {
      outcome = await lane.merge(deps.writes.walletPayments, { base, ids: newWalletPaymentIds(base), shard: lane.shard ?? creditShard() });
    } catch (error) {
      if (isUniqueViolation(error)) return replay(auth, prepared);
      throw error;
    }
    return { created: true, object: chargeView(walletPaymentRow(base, outcome.failure_code)) };
  }

  /** Same reference again: replay (resuming a dead first attempt), or 409 for a different request. */
  async function replay(auth: AuthContext, prepared: PreparedCharge): Promise<Created<ChargeView>> {
    const existing = await store.findChargeByReference(db, auth.merchantId, prepared.kind, prepared.reference);
    if (!existing) throw new Error('reference taken but no charge found');
    const stored = existing.request_fingerprint as Record<string, string>;
    if (!sameRequest(stored, prepared.fingerprint)) throw referenceConflict(prepared.reference, existing.id, stored, prepared.fingerprint);
    if (existing.status === 'pending' && existing.provider_state === 'not_started' && prepared.providerMethod) {
      return { created: false, object: chargeView(await resumeClaimed({ db, clock, settlement }, existing, prepared.providerMethod)) };
    }
    return { created: false, object: chargeView(existing) };
  }

  return {
    async createCharge(auth: AuthContext, kind: ChargeKind, body: ChargeBody): Promise<Created<ChargeView>> {
      const now = clock.now();
      const prepared = await prepareCharge({ db, config, hashKey: deps.hashKey, now }, auth, kind, body);
      if (prepared.methodType === 'wallet') return payFromWallet(auth, prepared, now);
      const row = await claim(auth, prepared, now);
      if (!row) return replay(auth, prepared);
      if (row.status !== 'pending') return { created: true, object: chargeView(row) };
      return {
        created: true,
        object: chargeView(await settlement.initiateWithProvider(row, present(prepared.providerMethod, 'provider method'))),
      };
    },

    async getCharge(auth: AuthContext, kind: ChargeKind, id: string): Promise<ChargeView> {
      const row = isIdOf(kind === 'payment' ? 'payment' : 'topup', id)
        ? await reader.load({ id, merchantId: auth.merchantId, kind })
        : undefined;
      if (!row) throw notFound();
      return chargeView(row);
    },

    async listCharges(auth: AuthContext, kind: ChargeKind, filters: store.ChargeFilters, page: PageRequest) {
      const { rows, hasMore } = await store.listCharges(db, auth.merchantId, kind, filters, page);
      return { object: 'list' as const, data: rows.map(chargeView), has_more: hasMore };
    },
  };
}

export type ChargeService = ReturnType<typeof createChargeService>;
