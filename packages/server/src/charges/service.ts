import type { Config } from '../config.ts';
import { FAILURE_MESSAGES, type FailureCode } from '../connectors/connector.ts';
import { type ConnectorRegistry, routeOf } from '../connectors/registry.ts';
import type { Db } from '../db/db.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { ChargeKind } from '../db/schema.ts';
import { notFound } from '../http/errors.ts';
import { runWalletPayment } from '../ledger/wallet-payment.ts';
import type { AuthContext } from '../oauth/service.ts';
import type { Clock } from '../shared/clock.ts';
import { isIdOf, newId } from '../shared/ids.ts';
import { present } from '../shared/invariant.ts';
import type { PageRequest } from '../shared/pagination.ts';
import { type Created, referenceConflict, sameRequest } from '../shared/replay.ts';
import { type ChargeBody, type PreparedCharge, prepareCharge } from './prepare.ts';
import { LEASE_MS, type Settlement } from './settlement.ts';
import * as store from './store.ts';
import { type ChargeRow, type ChargeView, chargeView } from './view.ts';

/** Provider name of wallet payments: money moves inside Purse's own ledger. */
const INTERNAL_PROVIDER = 'purse';
/** Provider name of a charge no connector serves: it fails at once with provider_error. */
const NO_PROVIDER = 'unconfigured';

/** The row a new charge would have in the database, for rendering before it is read back. */
function pendingRow(auth: AuthContext, prepared: PreparedCharge, id: string, now: Date, provider: string): ChargeRow {
  return {
    id,
    kind: prepared.kind,
    merchant_id: auth.merchantId,
    reference: prepared.reference,
    request_fingerprint: prepared.fingerprint,
    status: 'pending',
    amount: prepared.amountMinor.toString(),
    currency: prepared.currency,
    method_type: prepared.methodType,
    method: prepared.publicMethod,
    wallet_id: prepared.walletId,
    customer: prepared.kind === 'payment' ? prepared.customer : null,
    description: prepared.description,
    metadata: prepared.metadata,
    callback_url: prepared.callbackUrl,
    failure_code: null,
    failure_message: null,
    provider,
    provider_reference: null,
    provider_state: 'not_started',
    late_outcome: null,
    livemode: auth.livemode,
    created_at: now,
    updated_at: now,
    completed_at: null,
    expires_at: null,
    next_check_at: null,
    lease_until: null,
    attempts: 0,
  };
}

export function createChargeService(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  hashKey: Buffer;
  registry: ConnectorRegistry;
  settlement: Settlement;
}) {
  const { db, clock, config, registry, settlement } = deps;

  /** The connector that serves this means, network and mode, by name; the name stays with the charge. */
  function providerOf(auth: AuthContext, prepared: PreparedCharge): string {
    const method = present(prepared.providerMethod, 'provider method');
    return registry.route(routeOf(method, auth.livemode))?.name ?? NO_PROVIDER;
  }

  /** Refusals that need no provider call: no provider configured, or a top-up to a frozen wallet. */
  function immediateFailure(provider: string, prepared: PreparedCharge): FailureCode | null {
    if (registry.get(provider) === null) return 'provider_error';
    if (prepared.kind === 'topup' && !prepared.walletActive) return 'wallet_inactive';
    return null;
  }

  /**
   * The claim, in one statement (store.claimCharge): the pending charge and its created event,
   * or, when no provider call is needed, the failed charge with both events. Undefined: the
   * reference is taken.
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
    const payload = (row: ChargeRow) => JSON.stringify({ object: chargeView(row) });
    const events = [{ id: newId('event'), type: `${prepared.kind}.created`, payload: payload(pending) }];
    const failureCode = immediateFailure(provider, prepared);
    const final = failureCode ? { status: 'failed' as const, failureCode, failureMessage: FAILURE_MESSAGES[failureCode] } : null;
    if (failureCode) {
      const failedRow: ChargeRow = {
        ...pending,
        status: 'failed',
        failure_code: failureCode,
        failure_message: FAILURE_MESSAGES[failureCode],
        completed_at: now,
        lease_until: null,
        next_check_at: null,
      };
      events.push({ id: newId('event'), type: `${prepared.kind}.failed`, payload: payload(failedRow) });
    }
    return store.claimCharge(
      db,
      {
        id,
        kind: prepared.kind,
        merchantId: auth.merchantId,
        reference: prepared.reference,
        fingerprint: prepared.fingerprint,
        amountMinor: prepared.amountMinor,
        currency: prepared.currency,
        methodType: prepared.methodType,
        method: prepared.publicMethod,
        walletId: prepared.walletId,
        customer: pending.customer,
        description: prepared.description,
        metadata: prepared.metadata,
        callbackUrl: prepared.callbackUrl,
        provider,
        livemode: auth.livemode,
        now,
        expiresAt,
        leaseUntil: lease,
        nextCheckAt: lease,
        final,
      },
      events,
    );
  }

  /**
   * A wallet payment: one statement does the debit, the charge, the posting and both events
   * (src/ledger/wallet-payment.ts). A taken reference surfaces as a unique violation: replay.
   * The negative control of the double-spend test takes the generic path with its broken debit.
   */
  async function payFromWallet(auth: AuthContext, prepared: PreparedCharge, now: Date): Promise<Created<ChargeView>> {
    const id = newId('payment');
    const base = pendingRow(auth, prepared, id, now, INTERNAL_PROVIDER);
    const final = (failureCode: 'insufficient_funds' | 'wallet_inactive' | null): ChargeRow => ({
      ...base,
      status: failureCode ? 'failed' : 'succeeded',
      failure_code: failureCode,
      failure_message: failureCode ? FAILURE_MESSAGES[failureCode] : null,
      completed_at: now,
    });
    const payload = (row: ChargeRow) => JSON.stringify({ object: chargeView(row) });
    let outcome: { status: string; failure_code: string | null };
    try {
      outcome = await runWalletPayment(db, {
        chargeId: id,
        merchantId: auth.merchantId,
        walletId: present(prepared.walletId, 'wallet id'),
        reference: prepared.reference,
        amountMinor: prepared.amountMinor,
        currency: prepared.currency,
        livemode: auth.livemode,
        now,
        fingerprint: JSON.stringify(prepared.fingerprint),
        method: JSON.stringify(prepared.publicMethod),
        customer: prepared.customer === null ? null : JSON.stringify(prepared.customer),
        description: prepared.description,
        metadata: JSON.stringify(prepared.metadata),
        callbackUrl: prepared.callbackUrl,
        ids: {
          ledgerTransaction: newId('ledgerTransaction'),
          debitEntry: newId('walletTransaction'),
          creditEntry: newId('walletTransaction'),
          createdEvent: newId('event'),
          finalEvent: newId('event'),
        },
        failureMessages: { insufficient_funds: FAILURE_MESSAGES.insufficient_funds, wallet_inactive: FAILURE_MESSAGES.wallet_inactive },
        negativeControlRmwDebit: config.negativeControlRmwDebit,
        payloads: {
          created: payload(base),
          succeeded: payload(final(null)),
          insufficient_funds: payload(final('insufficient_funds')),
          wallet_inactive: payload(final('wallet_inactive')),
        },
      });
    } catch (error) {
      if (isUniqueViolation(error)) return replay(auth, prepared, now);
      throw error;
    }
    return { created: true, object: chargeView(final(outcome.failure_code as 'insufficient_funds' | 'wallet_inactive' | null)) };
  }

  /** Same reference again: replay (resuming a dead first attempt), or 409 for a different request. */
  async function replay(auth: AuthContext, prepared: PreparedCharge, now: Date): Promise<Created<ChargeView>> {
    const existing = await store.findChargeByReference(db, auth.merchantId, prepared.kind, prepared.reference);
    if (!existing) throw new Error('reference taken but no charge found');
    const stored = existing.request_fingerprint as Record<string, string>;
    if (!sameRequest(stored, prepared.fingerprint)) throw referenceConflict(prepared.reference, existing.id, stored, prepared.fingerprint);
    if (existing.status === 'pending' && existing.provider_state === 'not_started' && prepared.providerMethod) {
      const claimed = await store.claimLease(db, existing.id, now, new Date(now.getTime() + LEASE_MS));
      if (claimed) return { created: false, object: chargeView(await settlement.resume(claimed, prepared.providerMethod)) };
    }
    return { created: false, object: chargeView(existing) };
  }

  return {
    async createCharge(auth: AuthContext, kind: ChargeKind, body: ChargeBody): Promise<Created<ChargeView>> {
      const now = clock.now();
      const prepared = await prepareCharge({ db, config, hashKey: deps.hashKey, now }, auth, kind, body);
      if (prepared.methodType === 'wallet') return payFromWallet(auth, prepared, now);
      const row = await claim(auth, prepared, now);
      if (!row) return replay(auth, prepared, now);
      if (row.status !== 'pending') return { created: true, object: chargeView(row) };
      return {
        created: true,
        object: chargeView(await settlement.initiateWithProvider(row, present(prepared.providerMethod, 'provider method'))),
      };
    },

    async getCharge(auth: AuthContext, kind: ChargeKind, id: string): Promise<ChargeView> {
      const row = isIdOf(kind === 'payment' ? 'payment' : 'topup', id) ? await store.findCharge(db, auth.merchantId, kind, id) : undefined;
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
