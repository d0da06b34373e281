// What the fake acquirer holds between requests: its objects, its clock (real time plus whatever a
// test advanced it by), the record of every operation that actually happened (for the counters)
// and the event emitter that feeds the webhook sender.
import type { Exponents } from './currencies.ts';
import { type Charge, type Intent, intentJson, type Refund, type RenderContext } from './objects.ts';
import { newEvent, type WebhookSender } from './webhooks.ts';

/** Operations that happened, once each, whatever the retries and replays. */
export type Operation = 'authorisation' | 'capture' | 'cancel' | 'refund' | 'hold_expiry';

export interface OperationRecord {
  operation: Operation;
  intentId: string;
  /** `metadata[purse_payment_id]` of the intent, when it has one. */
  pursePaymentId: string | null;
  /** The refund's id, for refunds. */
  refundId?: string;
}

/** Who caused an event: the API request (its id and idempotency key), or nobody (a hook, the clock). */
export interface Cause {
  requestId: string | null;
  idempotencyKey: string | null;
  /** A `drop_webhooks` fault: the events are recorded but never sent. */
  dropWebhooks: boolean;
}

export const NO_CAUSE: Cause = { requestId: null, idempotencyKey: null, dropWebhooks: false };

export interface StateOptions {
  holdDays: number;
  currencyExponents: Exponents;
  /** A challenge left open this long fails as abandoned (null: it stays open, as on Stripe). */
  challengeTtlMs: number | null;
  refundSettleDelayMs: number;
  refundInitialStatus: 'succeeded' | 'pending';
}

export class AcquirerState implements RenderContext {
  readonly intents = new Map<string, Intent>();
  readonly charges = new Map<string, Charge>();
  readonly refunds = new Map<string, Refund>();
  /** Challenge token → intent id. */
  readonly challenges = new Map<string, string>();
  readonly operations: OperationRecord[] = [];
  readonly timers = new Set<NodeJS.Timeout>();
  offsetMs = 0;

  constructor(
    readonly options: StateOptions,
    readonly webhooks: WebhookSender,
    private readonly challengeUrlOf: (token: string) => string,
  ) {}

  challengeUrl(token: string): string {
    return this.challengeUrlOf(token);
  }

  nowMs(): number {
    return Date.now() + this.offsetMs;
  }

  /** Unix seconds on the fake's clock, as Stripe's timestamps are. */
  nowS(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  record(operation: Operation, intent: Intent, refundId?: string): void {
    this.operations.push({ operation, intentId: intent.id, pursePaymentId: intent.metadata.purse_payment_id ?? null, refundId });
  }

  emit(type: string, object: unknown, cause: Cause): void {
    const event = newEvent(type, object, this.nowS(), { id: cause.requestId, idempotency_key: cause.idempotencyKey });
    this.webhooks.emit(event, cause.dropWebhooks);
  }

  intentJson(intent: Intent, expand?: ReadonlySet<string>) {
    return intentJson(intent, this, expand);
  }

  chargeOf(intent: Intent): Charge | undefined {
    return intent.chargeId === null ? undefined : this.charges.get(intent.chargeId);
  }

  /** Runs `fn` after `ms` of real time, unless the fake is closed first. */
  later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
