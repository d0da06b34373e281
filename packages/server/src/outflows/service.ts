import type { Static } from 'typebox';
import { auditEntry } from '../audit/entry.ts';
import type { AuditEntry } from '../audit/types.ts';
import * as input from '../charges/input.ts';
import { loadWallet } from '../charges/prepare.ts';
import type { ChargeReader } from '../charges/store/read.ts';
import { type ChargeRow, receivedMinor } from '../charges/view.ts';
import type { Config } from '../config.ts';
import { type ConnectorRegistry, routeOf } from '../connectors/registry.ts';
import type { Db } from '../db/db.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { GroupCommit } from '../db/group-commit.ts';
import type { DestinationType, OutflowKind } from '../db/schema.ts';
import { ensureFundsRow } from '../ledger/merchant-balance.ts';
import type { AuthContext } from '../oauth/service.ts';
import type { Clock } from '../shared/clock.ts';
import { ApiError, notFound } from '../shared/errors.ts';
import type { FailureCode } from '../shared/failures.ts';
import { type Fingerprint, fingerprint } from '../shared/fingerprint.ts';
import { isIdOf, newId } from '../shared/ids.ts';
import { present } from '../shared/invariant.ts';
import { formatAmount } from '../shared/money.ts';
import type { PageRequest } from '../shared/pagination.ts';
import { type Created, referenceConflict, sameRequest } from '../shared/replay.ts';
import type { CreatePayoutBody, CreateRefundBody } from './schemas.ts';
import type { OutflowSettlement } from './settlement.ts';
import { type Decision, type Outflows, outflowItem, outflowOutcomeRow } from './store/create.ts';
import * as store from './store/read.ts';
import { type OutflowRow, type OutflowView, outflowView } from './view.ts';
import { OUTFLOW_LEASE_MS } from './worker.ts';

type RefundBody = Static<typeof CreateRefundBody>;
type PayoutBody = Static<typeof CreatePayoutBody>;

/** Provider name of an outflow to a wallet: the money stays in Purse's own ledger. */
const INTERNAL_PROVIDER = 'purse';
/** Provider name when no connector serves the destination: the outflow fails at once (provider_error). */
const NO_PROVIDER = 'unconfigured';

/** What both creates agree on before the statement: the rendered row and the fingerprint of the request. */
interface Draft {
  kind: OutflowKind;
  reference: string;
  amount: bigint;
  currency: string;
  paymentId: string | null;
  reason: string | null;
  destinationType: DestinationType;
  destination: unknown;
  walletId: string | null;
  provider: string;
  description: string | null;
  metadata: Record<string, string>;
  callbackUrl: string | null;
  fingerprint: Fingerprint;
}

/** Where a refund of this payment goes: back by the means that paid, shown without anything secret. */
function refundDestination(payment: ChargeRow): { type: DestinationType; destination: unknown; walletId: string | null } {
  const method = payment.method as {
    wallet?: { wallet_id: string };
    card?: { brand: string; last4: string };
    mobile_money?: { phone_number: string; provider: string | null };
  };
  switch (payment.method_type) {
    case 'wallet': {
      const walletId = present(payment.wallet_id, 'wallet of a wallet payment');
      return { type: 'wallet', destination: { type: 'wallet', wallet: { wallet_id: walletId } }, walletId };
    }
    case 'card': {
      const card = present(method.card, 'card of a card payment');
      return { type: 'card', destination: { type: 'card', card: { brand: card.brand, last4: card.last4 } }, walletId: null };
    }
    case 'mobile_money': {
      const mm = present(method.mobile_money, 'phone of a mobile-money payment');
      return { type: 'mobile_money', destination: { type: 'mobile_money', mobile_money: mm }, walletId: null };
    }
    default: {
      const unhandled: never = payment.method_type;
      throw new Error(`invariant broken: no refund destination for ${String(unhandled)}`);
    }
  }
}

/** The audit record of an outflow's creation (docs/keys-and-audit.md): who asked, for how much. */
function creationRecord(auth: AuthContext, base: OutflowRow): AuditEntry {
  const changes = { amount: formatAmount(BigInt(base.amount), base.currency), currency: base.currency, payment_id: base.payment_id };
  return auditEntry(auth, `${base.kind}.created`, { type: base.kind, id: base.id }, changes);
}

export function createOutflowService(deps: {
  db: Db;
  groupCommit: GroupCommit;
  /** Point reads of charges (a refund's payment), batched. */
  chargeReader: ChargeReader;
  /** The refunds and payouts' merged write (store/create.ts), chosen in deps.ts. */
  writes: { outflows: Outflows };
  clock: Clock;
  config: Config;
  hashKey: Buffer;
  registry: ConnectorRegistry;
  settlement: OutflowSettlement;
}) {
  const { db, clock, config, hashKey, registry, settlement } = deps;

  /** The row the statement writes when it succeeds: final for a wallet, pending (leased) for a provider. */
  function baseRow(auth: AuthContext, draft: Draft, now: Date): OutflowRow {
    const internal = draft.destinationType === 'wallet';
    const lease = internal ? null : new Date(now.getTime() + OUTFLOW_LEASE_MS);
    return {
      id: newId(draft.kind),
      kind: draft.kind,
      merchant_id: auth.merchantId,
      reference: draft.reference,
      request_fingerprint: draft.fingerprint,
      status: internal ? 'succeeded' : 'pending',
      amount: draft.amount.toString(),
      currency: draft.currency,
      payment_id: draft.paymentId,
      reason: draft.reason,
      destination_type: draft.destinationType,
      destination: draft.destination,
      wallet_id: draft.walletId,
      description: draft.description,
      metadata: draft.metadata,
      callback_url: draft.callbackUrl,
      failure_code: null,
      failure_message: null,
      provider: draft.provider,
      provider_reference: null,
      provider_state: 'not_started',
      late_outcome: null,
      livemode: auth.livemode,
      created_at: now,
      updated_at: now,
      completed_at: internal ? now : null,
      next_check_at: lease,
      lease_until: lease,
      attempts: 0,
    };
  }

  /**
   * Runs the one statement (store/create.ts), merged with the lane's other outflows; a merchant's
   * first outflow in a currency creates its balance row and runs it again. Then a provider
   * destination is sent.
   */
  async function create(auth: AuthContext, draft: Draft, payment?: ChargeRow): Promise<Created<OutflowView>> {
    const now = clock.now();
    const base = baseRow(auth, draft, now);
    const refuse: FailureCode | null = base.status === 'pending' && registry.get(draft.provider) === null ? 'provider_error' : null;
    // The merchant's lane: its outflows all decide on its shard-0 balance row anyway.
    const lane = deps.groupCommit.lane(auth.merchantId);
    let decision: Decision = 'no_funds_row';
    for (let attempt = 0; decision === 'no_funds_row' && attempt < 2; attempt++) {
      if (attempt > 0) await ensureFundsRow(db, auth.merchantId, draft.currency);
      try {
        decision = (await lane.merge(deps.writes.outflows, outflowItem({ base, refuse }, creationRecord(auth, base)))).decision;
      } catch (error) {
        if (isUniqueViolation(error)) return replay(auth, draft);
        throw error;
      }
    }
    if (decision === 'payment_not_refundable') throw notRefundable();
    if (decision === 'amount_too_large') throw tooLarge();
    if (decision === 'no_funds_row') throw new Error('invariant broken: the balance row is still missing after it was created');
    const row = outflowOutcomeRow(base, decision);
    if (row.status !== 'pending') return { created: true, object: outflowView(row) };
    return { created: true, object: outflowView(await settlement.send(row, payment)) };
  }

  /** Same reference again: the stored object (200), or 409 naming the fields that differ. */
  async function replay(auth: AuthContext, draft: Draft): Promise<Created<OutflowView>> {
    const existing = await store.findOutflowByReference(db, auth.merchantId, draft.kind, draft.reference);
    if (!existing) throw new Error('reference taken but no outflow found');
    const stored = existing.request_fingerprint as Fingerprint;
    if (!sameRequest(stored, draft.fingerprint)) throw referenceConflict(draft.reference, existing.id, stored, draft.fingerprint);
    return { created: false, object: outflowView(existing) };
  }

  const notRefundable = (message = 'Only a succeeded payment can be refunded.') =>
    new ApiError('payment_not_refundable', message, { param: 'payment_id' });
  const tooLarge = () =>
    new ApiError('amount_too_large', 'The amount is above what is still refundable on this payment.', { param: 'amount' });

  /** The merchant's payment, or the 400 a request naming another merchant's or an unknown payment gets. */
  async function loadPayment(auth: AuthContext, id: string): Promise<ChargeRow> {
    const payment = isIdOf('payment', id) ? await deps.chargeReader.load({ id, merchantId: auth.merchantId, kind: 'payment' }) : undefined;
    if (!payment) {
      throw new ApiError('resource_missing', 'No such payment: payment_id does not name a payment of this account.', {
        param: 'payment_id',
      });
    }
    return payment;
  }

  function common(auth: AuthContext, body: { description?: string; metadata?: Record<string, string>; callback_url?: string }) {
    return {
      description: body.description ?? null,
      metadata: body.metadata ?? {},
      callbackUrl: input.checkCallback(body.callback_url, config, auth.livemode),
    };
  }

  async function getOutflow(auth: AuthContext, kind: OutflowKind, id: string): Promise<OutflowView> {
    const row = isIdOf(kind, id) ? await store.findOutflow(db, auth.merchantId, kind, id) : undefined;
    if (!row) throw notFound();
    return outflowView(row);
  }

  async function listOutflows(auth: AuthContext, kind: OutflowKind, filters: store.OutflowFilters, page: PageRequest) {
    const { rows, hasMore } = await store.listOutflows(db, auth.merchantId, kind, filters, page);
    return { object: 'list' as const, data: rows.map(outflowView), has_more: hasMore };
  }

  return {
    /**
     * A refund: back to the wallet in the statement, or through the payment's provider (a card
     * answers at once, mobile money later). Refused with 400 before anything is written when the
     * payment is not succeeded or has not that much left; the statement decides both on the
     * payment's locked row, so the 400 is never a stale read's.
     */
    async createRefund(auth: AuthContext, body: RefundBody): Promise<Created<OutflowView>> {
      const reference = input.checkReference(body.reference);
      const payment = await loadPayment(auth, body.payment_id);
      if (payment.status !== 'succeeded') throw notRefundable();
      const left = receivedMinor(payment) - BigInt(payment.amount_refunded);
      const requested = body.amount === undefined ? null : input.checkAmount(body.amount, payment.currency, config);
      if (requested === null && left === 0n) throw notRefundable('This payment is already refunded in full.');
      const amount = requested ?? left;
      if (amount > left) throw tooLarge();
      const to = refundDestination(payment);
      const provider = to.type === 'wallet' ? INTERNAL_PROVIDER : payment.provider;
      const rest = common(auth, body);
      const reason = body.reason ?? null;
      // The request as sent: an omitted amount stays omitted, so a retry replays even after other refunds.
      const fields = {
        payment_id: payment.id,
        amount: requested === null ? null : requested.toString(),
        reason,
        description: rest.description,
        metadata: rest.metadata,
        callback_url: rest.callbackUrl,
      };
      return create(
        auth,
        {
          kind: 'refund',
          reference,
          amount,
          currency: payment.currency,
          paymentId: payment.id,
          reason,
          destinationType: to.type,
          destination: to.destination,
          walletId: to.walletId,
          provider,
          ...rest,
          fingerprint: fingerprint(hashKey, fields),
        },
        payment,
      );
    },

    /** A payout from the available funds: to one of the merchant's wallets at once, or to mobile money through a connector. */
    async createPayout(auth: AuthContext, body: PayoutBody): Promise<Created<OutflowView>> {
      const reference = input.checkReference(body.reference);
      const currency = input.checkCurrency(body.currency, config);
      const amount = input.checkAmount(body.amount, currency, config);
      const d = body.destination;
      let to: { type: DestinationType; destination: unknown; walletId: string | null; provider: string; canonical: unknown };
      if (d.type === 'wallet') {
        const walletId = d.wallet.wallet_id;
        await loadWallet(db, auth, walletId, currency, 'destination.wallet.wallet_id');
        const destination = { type: 'wallet', wallet: { wallet_id: walletId } };
        to = { type: 'wallet', destination, walletId, provider: INTERNAL_PROVIDER, canonical: destination };
      } else {
        const mm = input.checkMobileMoney(d.mobile_money, 'destination.mobile_money');
        const method = { type: 'mobile_money' as const, phoneNumber: mm.phone_number, provider: mm.provider };
        const provider = registry.route(routeOf(method, auth.livemode, config.mobileMoneyRoutes))?.name ?? NO_PROVIDER;
        const destination = { type: 'mobile_money', mobile_money: mm };
        to = { type: 'mobile_money', destination, walletId: null, provider, canonical: destination };
      }
      const rest = common(auth, body);
      const fields = {
        amount: amount.toString(),
        currency,
        destination: to.canonical,
        description: rest.description,
        metadata: rest.metadata,
        callback_url: rest.callbackUrl,
      };
      return create(auth, {
        kind: 'payout',
        reference,
        amount,
        currency,
        paymentId: null,
        reason: null,
        destinationType: to.type,
        destination: to.destination,
        walletId: to.walletId,
        provider: to.provider,
        ...rest,
        fingerprint: fingerprint(hashKey, fields),
      });
    },

    getOutflow,
    listOutflows,
  };
}

export type OutflowService = ReturnType<typeof createOutflowService>;
