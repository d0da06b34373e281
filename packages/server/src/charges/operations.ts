import type { Config } from '../config.ts';
import type { CancellationReason } from '../connectors/connector.ts';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import type { Db } from '../db/db.ts';
import type { ChargeOperation } from '../db/schema.ts';
import type { AuthContext } from '../oauth/service.ts';
import type { Clock } from '../shared/clock.ts';
import { ApiError, notFound } from '../shared/errors.ts';
import { isIdOf } from '../shared/ids.ts';
import { formatAmount } from '../shared/money.ts';
import * as input from './input.ts';
import { LEASE_MS, type Settlement } from './settlement.ts';
import { type claimOperation, leaseOperation } from './store/card-states.ts';
import { findChargeById } from './store/read.ts';
import { type ChargeRow, type ChargeView, chargeView, receivedMinor } from './view.ts';

/** The reasons a merchant may give for a cancel (expired and abandoned are Purse's own). */
export type MerchantCancellationReason = Extract<CancellationReason, 'requested_by_customer' | 'duplicate' | 'fraudulent'>;

const invalidState = (row: ChargeRow, operation: ChargeOperation) =>
  new ApiError(
    'payment_invalid_state',
    row.pending_operation !== null
      ? `A ${row.pending_operation} of this payment is in progress: retrieve the payment to see how it ends.`
      : operation === 'capture'
        ? `This payment is ${row.status}: only a payment in requires_capture can be captured.`
        : `This payment is ${row.status}: only a payment in requires_action or requires_capture can be canceled.`,
  );

/**
 * Capture and cancel of card payments (manual capture, 3-D Secure not finished). Each is
 * recorded on the payment before the acquirer is called (store/card-states.ts claimOperation),
 * which decides between concurrent requests; then settlement sends it with its stored key. The
 * same capture or cancel again answers the payment as it is: both are idempotent.
 */
type OperationDeps = {
  db: Db;
  clock: Clock;
  config: Config;
  registry: ConnectorRegistry;
  settlement: Settlement;
  /** The statement that records an operation before the acquirer is called (store/card-states.ts claimOperation; deps.ts wires it). */
  claim: typeof claimOperation;
};

export function createCardOperations(deps: OperationDeps) {
  const { db, clock, registry, settlement } = deps;

  async function load(auth: AuthContext, id: string): Promise<ChargeRow> {
    const row = isIdOf('payment', id) ? await findChargeById(db, id) : undefined;
    if (!row || row.merchant_id !== auth.merchantId || row.kind !== 'payment') throw notFound();
    return row;
  }

  /** Runs a recorded operation whose first caller is gone (or this one, just recorded). */
  async function run(row: ChargeRow): Promise<ChargeRow> {
    const connector = registry.get(row.provider);
    if (!connector) return row;
    return settlement.runOperation(connector, row);
  }

  /** The operation is already recorded (a repeat while it runs): take it over if its holder is gone. */
  async function resumeRecorded(row: ChargeRow): Promise<ChargeView> {
    const now = clock.now();
    const leased = await leaseOperation(db, row.id, now, new Date(now.getTime() + LEASE_MS));
    // Taken over: settlement asks the acquirer first (it may have acted and lost its answer).
    return chargeView(leased ? await settlement.resume(leased, null) : row);
  }

  const ctx: Ctx = { deps, load, run, resumeRecorded };
  return {
    capture: (auth: AuthContext, id: string, body: { amount?: string }) => capture(ctx, auth, id, body),
    cancel: (auth: AuthContext, id: string, body: { reason?: MerchantCancellationReason }) => cancel(ctx, auth, id, body),
  };
}

interface Ctx {
  deps: OperationDeps;
  load(auth: AuthContext, id: string): Promise<ChargeRow>;
  run(row: ChargeRow): Promise<ChargeRow>;
  resumeRecorded(row: ChargeRow): Promise<ChargeView>;
}

async function capture(ctx: Ctx, auth: AuthContext, id: string, body: { amount?: string }): Promise<ChargeView> {
  const { db, clock, config } = ctx.deps;
  const row = await ctx.load(auth, id);
  const amountMinor = body.amount === undefined ? null : input.checkAmount(body.amount, row.currency, config);
  const now = clock.now();
  const capturable = row.status === 'requires_capture' ? BigInt(row.amount_capturable ?? row.amount) : null;
  if (capturable !== null && amountMinor !== null && amountMinor > capturable) {
    throw new ApiError(
      'amount_too_large',
      `amount is above what can be captured (${formatAmount(capturable, row.currency)} ${row.currency}).`,
      { param: 'amount' },
    );
  }
  const claimed = await ctx.deps.claim(db, {
    id: row.id,
    merchantId: auth.merchantId,
    operation: 'capture',
    amountMinor: amountMinor ?? capturable,
    cancellationReason: null,
    now,
    leaseUntil: new Date(now.getTime() + LEASE_MS),
  });
  if (claimed) return chargeView(await ctx.run(claimed));
  const current = await ctx.load(auth, id);
  const same = amountMinor === null || BigInt(current.operation_amount ?? -1) === amountMinor;
  if (current.pending_operation === 'capture' && same) return ctx.resumeRecorded(current);
  // Captured already: the same capture again answers the payment.
  const received = receivedMinor(current);
  if (current.status === 'succeeded' && current.capture_method === 'manual' && (amountMinor === null || received === amountMinor)) {
    return chargeView(current);
  }
  throw invalidState(current, 'capture');
}

async function cancel(ctx: Ctx, auth: AuthContext, id: string, body: { reason?: MerchantCancellationReason }): Promise<ChargeView> {
  const { db, clock } = ctx.deps;
  const row = await ctx.load(auth, id);
  const now = clock.now();
  const claimed = await ctx.deps.claim(db, {
    id: row.id,
    merchantId: auth.merchantId,
    operation: 'cancel',
    amountMinor: null,
    cancellationReason: body.reason ?? 'requested_by_customer',
    now,
    leaseUntil: new Date(now.getTime() + LEASE_MS),
  });
  if (claimed) return chargeView(await ctx.run(claimed));
  const current = await ctx.load(auth, id);
  if (current.pending_operation === 'cancel') return ctx.resumeRecorded(current);
  if (current.status === 'canceled') return chargeView(current);
  throw invalidState(current, 'cancel');
}

export type CardOperations = ReturnType<typeof createCardOperations>;
