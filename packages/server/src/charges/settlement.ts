import type { FastifyBaseLogger } from 'fastify';
import { FAILURE_MESSAGES, type FailureCode, type ProviderMethod, type ProviderOutcome } from '../connectors/connector.ts';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import type { Db } from '../db/db.ts';
import { recordEvent } from '../events/store.ts';
import { merchantAccount, providerAccount, walletAccount } from '../ledger/accounts.ts';
import { postLedgerTransaction } from '../ledger/service.ts';
import type { Clock } from '../shared/clock.ts';
import { withTimeout } from '../shared/timeout.ts';
import * as store from './store.ts';
import { type ChargeRow, chargeView } from './view.ts';

export const PROVIDER_TIMEOUT_MS = 10_000;
/** How long a request or worker may hold a pending charge while it talks to the provider. */
export const LEASE_MS = 15_000;
/** A card charge the provider never saw can be resumed by a retry (which carries the card) this long. */
export const CARD_RESUME_WINDOW_MS = 120_000;

export type FinalOutcome = Extract<ProviderOutcome, { status: 'succeeded' | 'failed' }>;

export const failed = (failureCode: FailureCode, providerReference: string | null = null): FinalOutcome => ({
  status: 'failed',
  failureCode,
  providerReference,
});

/** Money in from outside: a payment credits the merchant's funds, a top-up the wallet. */
async function postSettlement(trx: Db, charge: ChargeRow, now: Date): Promise<void> {
  const amount = BigInt(charge.amount);
  const source = providerAccount(charge.provider, charge.method_type, charge.currency);
  const target = charge.kind === 'payment' ? merchantAccount(charge.merchant_id, charge.currency) : walletAccount(charge.wallet_id!);
  const posted = await postLedgerTransaction(trx, {
    merchantId: charge.merchant_id,
    sourceType: charge.kind,
    sourceId: charge.id,
    createdAt: now,
    lines: [
      { account: source, currency: charge.currency, amount: -amount },
      { account: target, currency: charge.currency, amount },
    ],
  });
  if (!posted.ok) throw new Error(`settlement credit refused: ${posted.error}`);
}

export function createSettlement(deps: { db: Db; clock: Clock; registry: ConnectorRegistry; log: FastifyBaseLogger }) {
  const { db, clock, registry, log } = deps;

  /**
   * pending → succeeded | failed, with its ledger posting and event, in one transaction. A final
   * state never changes: an outcome that contradicts it is kept for reconciliation.
   */
  async function applyOutcome(chargeId: string, outcome: FinalOutcome): Promise<ChargeRow> {
    return db.transaction().execute(async (trx) => {
      const now = clock.now();
      const failureCode = outcome.status === 'failed' ? outcome.failureCode : null;
      const updated = await store.finishCharge(
        trx,
        chargeId,
        { status: outcome.status, failureCode, failureMessage: failureCode ? FAILURE_MESSAGES[failureCode] : null, providerReference: outcome.providerReference },
        now,
      );
      if (!updated) {
        const existing = (await store.findChargeById(trx, chargeId))!;
        if (existing.status !== outcome.status || existing.failure_code !== failureCode) {
          log.warn({ charge_id: chargeId, status: existing.status, late: outcome.status }, 'provider outcome after a final state; kept for reconciliation');
          await store.recordLateOutcome(trx, chargeId, outcome, now);
        }
        return existing;
      }
      if (updated.status === 'succeeded') await postSettlement(trx, updated, now);
      await recordEvent(trx, { merchantId: updated.merchant_id, type: `${updated.kind}.${outcome.status}`, object: chargeView(updated), createdAt: now });
      return updated;
    });
  }

  /** Stores what the provider said: a final outcome settles; pending waits for the worker. */
  async function recordProviderOutcome(charge: ChargeRow, outcome: ProviderOutcome): Promise<ChargeRow> {
    if (outcome.status !== 'pending') return applyOutcome(charge.id, outcome);
    const now = clock.now();
    let nextCheck = now.getTime() + outcome.checkAfterMs;
    if (charge.expires_at) nextCheck = Math.min(nextCheck, charge.expires_at.getTime());
    const updated = await store.markInitiated(db, charge.id, outcome.providerReference, new Date(nextCheck), now);
    return updated ?? (await store.findChargeById(db, charge.id))!;
  }

  /** Calls the provider outside any transaction. A timeout or error leaves the charge pending. */
  async function initiateWithProvider(charge: ChargeRow, method: ProviderMethod): Promise<ChargeRow> {
    const connector = registry.get(charge.provider);
    if (!connector) return applyOutcome(charge.id, failed('provider_error'));
    try {
      const outcome = await withTimeout(
        connector.initiate({
          idempotencyKey: charge.id,
          kind: charge.kind,
          amountMinor: BigInt(charge.amount),
          currency: charge.currency,
          method,
          expiresAt: charge.expires_at,
        }),
        PROVIDER_TIMEOUT_MS,
        'provider initiate',
      );
      return await recordProviderOutcome(charge, outcome);
    } catch (error) {
      // Unknown outcome: pending, never failed (reliability rule 4). The worker asks for the status.
      log.warn({ err: error, charge_id: charge.id }, 'provider call failed; the worker will ask for the status');
      await store.releaseCharge(db, charge.id, new Date(clock.now().getTime() + 2_000));
      return (await store.findChargeById(db, charge.id))!;
    }
  }

  /** Picks up a charge whose first attempt died: ask the provider first, initiate only if it never saw it. */
  async function resume(charge: ChargeRow, method: ProviderMethod | null): Promise<ChargeRow> {
    const connector = registry.get(charge.provider);
    if (!connector) return applyOutcome(charge.id, failed('provider_error'));
    const now = clock.now();
    const expired = charge.expires_at !== null && now >= charge.expires_at;
    let status;
    try {
      status = await withTimeout(connector.getStatus({ idempotencyKey: charge.id, providerReference: charge.provider_reference }), PROVIDER_TIMEOUT_MS, 'provider status');
    } catch (error) {
      log.warn({ err: error, charge_id: charge.id }, 'provider status failed; will retry');
      await store.releaseCharge(db, charge.id, new Date(now.getTime() + 5_000));
      return charge;
    }
    if (status.status === 'succeeded' || status.status === 'failed') return applyOutcome(charge.id, status);
    if (status.status === 'pending') return expired ? applyOutcome(charge.id, failed('expired', status.providerReference)) : recordProviderOutcome(charge, status);
    if (expired) return applyOutcome(charge.id, failed('expired'));
    if (method) return initiateWithProvider(charge, method);
    if (now.getTime() - charge.created_at.getTime() > CARD_RESUME_WINDOW_MS) return applyOutcome(charge.id, failed('processing_error'));
    await store.releaseCharge(db, charge.id, new Date(now.getTime() + 5_000));
    return charge;
  }

  return { applyOutcome, recordProviderOutcome, initiateWithProvider, resume };
}

export type Settlement = ReturnType<typeof createSettlement>;

/** What the worker can rebuild from a stored charge: mobile money yes, a card never (no number kept). */
export function storedProviderMethod(charge: ChargeRow): ProviderMethod | null {
  if (charge.method_type !== 'mobile_money') return null;
  const mm = (charge.method as { mobile_money: { phone_number: string; provider: string | null } }).mobile_money;
  return { type: 'mobile_money', phoneNumber: mm.phone_number, provider: mm.provider };
}
