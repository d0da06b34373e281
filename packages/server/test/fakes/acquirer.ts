// A faithful fake of a card acquirer speaking Stripe's PaymentIntents API (the protocol of the
// contract's §20), over real HTTP on 127.0.0.1, written from Stripe's public documentation:
// form-encoded bodies with bracketed keys, Bearer secret keys, PaymentIntents created and
// confirmed with raw card data, Stripe's test cards (declines as 402 card_error), 3-D Secure by
// redirect to a challenge page of its own, manual and partial capture, cancel, holds that lapse
// after 7 days, refunds that may fail later, Stripe's idempotency rules, signed webhooks, and
// faults and counters for tests. The parts live in ./acquirer/.
import { randomBytes } from 'node:crypto';
import { ACQUIRER_TEST_CARDS } from './acquirer/cards.ts';
import type { Exponents } from './acquirer/currencies.ts';
import { internalError } from './acquirer/errors.ts';
import { type Endpoint, type FaultKind, type FaultOptions, FaultPlan } from './acquirer/faults.ts';
import { createHandlers } from './acquirer/handlers.ts';
import { IdempotencyStore } from './acquirer/idempotency.ts';
import { expireHold, finishChallenge, sweep } from './acquirer/intents.ts';
import { intentJson, refundJson } from './acquirer/objects.ts';
import { failRefund, settleRefund } from './acquirer/refunds.ts';
import { createRouter, type LoggedRequest } from './acquirer/router.ts';
import { AcquirerState, NO_CAUSE, type Operation, type OperationRecord } from './acquirer/state.ts';
import { type WebhookMode, WebhookSender, type Webhooks } from './acquirer/webhooks.ts';
import { serveFake } from './http.ts';

export { ACQUIRER_TEST_CARDS } from './acquirer/cards.ts';
export { exponentOf, ZERO_DECIMAL_CURRENCIES } from './acquirer/currencies.ts';
export type { Endpoint, FaultKind, FaultOptions } from './acquirer/faults.ts';
export { encodeForm } from './acquirer/form.ts';
export type { LoggedRequest } from './acquirer/router.ts';
export type { StripeEvent, WebhookMode } from './acquirer/webhooks.ts';
export { signatureHeader } from './acquirer/webhooks.ts';

export interface FakeAcquirerOptions {
  /** Where signed events are POSTed; null (the default) records them without sending. Also `fake.webhooks.url`. */
  webhookUrl?: string | null;
  /** 'immediate' (default), 'late', 'twice', 'out_of_order' or 'never'; also `fake.webhooks.mode`. */
  webhookMode?: WebhookMode;
  /** 'late' waits this long; 'out_of_order' gathers events this long (default 200 ms). */
  webhookDelayMs?: number;
  /** Waits before each retry of a delivery that failed (default [100, 500, 2000] ms). */
  webhookRetryDelaysMs?: number[];
  /** Sign with two secrets from the start, as while a secret is being rolled. */
  twoWebhookSecrets?: boolean;
  /** How long an authorisation can be captured (default 7 days). */
  holdDays?: number;
  /** An open challenge older than this fails as abandoned (default: never, as on Stripe). */
  challengeTtlMs?: number | null;
  /** How long the refund test cards take to settle or fail (default 100 ms). */
  refundSettleDelayMs?: number;
  /** The first status of other cards' refunds (default 'succeeded'); 'pending' ones wait for settleRefund or failRefund. */
  refundInitialStatus?: 'succeeded' | 'pending';
  /** How long an intent takes to show up in search, on the fake's clock (default 1000 ms: Stripe's search is not read-after-write). */
  searchLagMs?: number;
  /** Overrides of the currency exponent table (e.g. { ugx: 2 }). */
  currencyExponents?: Exponents;
}

export interface OperationCounts {
  /** PaymentIntents created (declined ones included): replays and retries never add one. */
  authorisations: number;
  captures: number;
  cancels: number;
  refunds: number;
  holdExpiries: number;
}

export interface FakeAcquirer {
  url: string;
  secretKey: string;
  /** The signing secret Purse is configured with (the first; `webhooks.secrets` lists all that sign). */
  webhookSecret: string;
  webhooks: Webhooks;
  /** Every API request received, in order, with what was answered. */
  requests: LoggedRequest[];
  /** Every operation that happened (authorisation, capture, cancel, refund, hold_expiry). */
  operations: OperationRecord[];
  /** Arms a fault for the next `times` requests an endpoint executes ('*': any endpoint). */
  inject(endpoint: Endpoint | '*', kind: FaultKind, options?: FaultOptions): void;
  clearFaults(): void;
  /** A second account: its own secret key, objects and idempotency keys. */
  addAccount(): string;
  /** Moves the fake's clock forward (lapsed holds expire at once). */
  advanceTime(ms: number): void;
  /** The hold of a requires_capture intent lapses now: canceled, cancellation_reason 'automatic'. */
  expireAuthorization(intentId: string): void;
  /** An open challenge is abandoned for good: the intent fails authentication. */
  expireChallenge(intentId: string): void;
  /** A pending refund succeeds. */
  settleRefund(refundId: string): void;
  /** A pending or succeeded refund fails (default reason expired_or_canceled_card). */
  failRefund(refundId: string, reason?: string): void;
  /** The PaymentIntent as GET would show it (latest_charge expanded), or undefined. */
  intent(intentId: string): Record<string, unknown> | undefined;
  refund(refundId: string): Record<string, unknown> | undefined;
  /** The intents whose metadata[purse_payment_id] is this id. */
  intentsFor(pursePaymentId: string): string[];
  counts(pursePaymentId: string): OperationCounts;
  countsForIntent(intentId: string): OperationCounts;
  close(): Promise<void>;
}

const secret = (prefix: string) => `${prefix}_${randomBytes(18).toString('base64url').replace(/[-_]/g, '0')}`;

function countOf(records: OperationRecord[]): OperationCounts {
  const n = (operation: Operation) => records.filter((r) => r.operation === operation).length;
  return {
    authorisations: n('authorisation'),
    captures: n('capture'),
    cancels: n('cancel'),
    refunds: n('refund'),
    holdExpiries: n('hold_expiry'),
  };
}

function newWebhooks(options: FakeAcquirerOptions, webhookSecret: string): WebhookSender {
  return new WebhookSender(
    {
      url: options.webhookUrl ?? null,
      mode: options.webhookMode ?? 'immediate',
      delayMs: options.webhookDelayMs ?? 200,
      retryDelaysMs: options.webhookRetryDelaysMs ?? [100, 500, 2000],
      secrets: options.twoWebhookSecrets ? [webhookSecret, secret('whsec')] : [webhookSecret],
    },
    () => secret('whsec'),
  );
}

type Hooks = Pick<
  FakeAcquirer,
  | 'advanceTime'
  | 'expireAuthorization'
  | 'expireChallenge'
  | 'settleRefund'
  | 'failRefund'
  | 'intent'
  | 'refund'
  | 'intentsFor'
  | 'counts'
  | 'countsForIntent'
>;

/** The test hooks and read-outs, straight on the state (no HTTP). */
function hooksOf(state: AcquirerState): Hooks {
  const intentOf = (id: string) => {
    const intent = state.intents.get(id);
    if (!intent) throw new Error(`fake acquirer: no payment intent ${id}`);
    return intent;
  };
  return {
    advanceTime(ms) {
      state.offsetMs += ms;
      sweep(state, NO_CAUSE);
    },
    expireAuthorization: (id) => {
      if (!expireHold(state, intentOf(id), NO_CAUSE)) throw new Error(`fake acquirer: ${id} holds no authorisation`);
    },
    expireChallenge: (id) => finishChallenge(state, intentOf(id), 'expire', NO_CAUSE),
    settleRefund: (id) => settleRefund(state, id),
    failRefund: (id, reason) => failRefund(state, id, reason),
    intent(id) {
      const intent = state.intents.get(id);
      return intent ? intentJson(intent, state, new Set(['latest_charge'])) : undefined;
    },
    refund(id) {
      const refund = state.refunds.get(id);
      return refund ? refundJson(refund) : undefined;
    },
    intentsFor: (purseId) => [...state.intents.values()].filter((i) => i.metadata.purse_payment_id === purseId).map((i) => i.id),
    counts: (purseId) => countOf(state.operations.filter((r) => r.pursePaymentId === purseId)),
    countsForIntent: (id) => countOf(state.operations.filter((r) => r.intentId === id)),
  };
}

export async function startFakeAcquirer(options: FakeAcquirerOptions = {}): Promise<FakeAcquirer> {
  const webhookSecret = secret('whsec');
  const webhooks = newWebhooks(options, webhookSecret);
  let url = '';
  const state = new AcquirerState(
    {
      holdDays: options.holdDays ?? 7,
      currencyExponents: options.currencyExponents ?? {},
      challengeTtlMs: options.challengeTtlMs ?? null,
      refundSettleDelayMs: options.refundSettleDelayMs ?? 100,
      refundInitialStatus: options.refundInitialStatus ?? 'succeeded',
    },
    webhooks,
    (token) => `${url}/3d_secure/${token}`,
  );
  const secretKey = secret('sk_test');
  const accounts = new Map([[secretKey, secret('acct')]]);
  const faults = new FaultPlan();
  const requests: LoggedRequest[] = [];
  const handlers = createHandlers(state, options.searchLagMs ?? 1000);
  const idempotency = new IdempotencyStore(() => state.nowMs());
  const router = createRouter({ state, handlers, idempotency, faults, accounts, log: requests });
  const served = await serveFake(router, internalError().body, new Set());
  url = served.url;
  return {
    url,
    secretKey,
    webhookSecret,
    webhooks,
    requests,
    operations: state.operations,
    inject: (endpoint, kind, faultOptions) => faults.arm(endpoint, kind, faultOptions),
    clearFaults: () => faults.clear(),
    addAccount() {
      const key = secret('sk_test');
      accounts.set(key, secret('acct'));
      return key;
    },
    ...hooksOf(state),
    close: async () => {
      webhooks.close();
      state.close();
      await served.close();
    },
  };
}

/** The PURSE_CARD_ACQUIRER_* environment that points Purse at this fake. */
export function fakeAcquirerEnv(fake: FakeAcquirer, publicUrl: string): Record<string, string> {
  return {
    PURSE_CARD_ACQUIRER_BASE_URL: fake.url,
    PURSE_CARD_ACQUIRER_SECRET_KEY: fake.secretKey,
    PURSE_CARD_ACQUIRER_WEBHOOK_SECRET: fake.webhookSecret,
    PURSE_PUBLIC_URL: publicUrl,
  };
}

/** The test cards as lines for a terminal (npm run fakes). */
export function describeTestCards(): string[] {
  return Object.entries(ACQUIRER_TEST_CARDS).map(([number, card]) => `  ${number.padEnd(16)}  ${card.description}`);
}
