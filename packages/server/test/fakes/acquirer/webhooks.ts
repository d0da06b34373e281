// Events and their signed delivery, as Stripe sends them (docs.stripe.com/webhooks): a POST of the
// event's JSON with `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`, one v1 per
// active signing secret (two while a secret is being rolled), a new timestamp and signature on
// each attempt, and retries after a non-2xx answer. Tests choose how events travel: at once, late,
// twice, out of order or never; a fault can drop the events of chosen requests.
import { createHmac } from 'node:crypto';
import { newId } from './objects.ts';

export type WebhookMode = 'immediate' | 'late' | 'twice' | 'out_of_order' | 'never';

export interface StripeEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: unknown; previous_attributes?: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: string;
}

export interface Delivery {
  eventId: string;
  type: string;
  attempt: number;
  /** The receiver's HTTP status, or the network error's message. */
  status: number | string;
}

export const API_VERSION = '2025-03-31.basil';

export function signatureHeader(body: string, secrets: readonly string[], timestamp: number): string {
  const signatures = secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`);
  return [`t=${timestamp}`, ...signatures].join(',');
}

export interface Webhooks {
  /** Where events are POSTed; null sends nothing (they are still recorded). */
  url: string | null;
  mode: WebhookMode;
  /** How long 'late' waits, and how long 'out_of_order' gathers events before sending them newest first. */
  delayMs: number;
  /** The waits before each retry after a non-2xx answer or a network error. */
  retryDelaysMs: number[];
  /** Every active signing secret signs each delivery. */
  secrets: string[];
  events: StripeEvent[];
  deliveries: Delivery[];
  /** Ids of events a `drop_webhooks` fault or the 'never' mode kept from being sent. */
  unsent: string[];
  /** Starts signing with a new secret; the old ones keep signing until `expireOldSecrets()`. */
  rollSecret(): string;
  expireOldSecrets(): void;
  /** Sends events held by 'out_of_order' now (newest first). */
  flush(): void;
  /** Resolves when nothing is being sent, held or waiting for a retry. */
  settled(): Promise<void>;
}

export interface WebhookSettings {
  url: string | null;
  mode: WebhookMode;
  delayMs: number;
  retryDelaysMs: number[];
  secrets: string[];
}

export class WebhookSender implements Webhooks {
  url: string | null;
  mode: WebhookMode;
  delayMs: number;
  retryDelaysMs: number[];
  secrets: string[];
  readonly events: StripeEvent[] = [];
  readonly deliveries: Delivery[] = [];
  readonly unsent: string[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private pending = 0;
  private held: StripeEvent[] = [];
  private closed = false;
  /** Attempts wait for the ones before them, so that events leave in the order they were sent. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    settings: WebhookSettings,
    private readonly newSecret: () => string,
  ) {
    this.url = settings.url;
    this.mode = settings.mode;
    this.delayMs = settings.delayMs;
    this.retryDelaysMs = settings.retryDelaysMs;
    this.secrets = settings.secrets;
  }

  rollSecret(): string {
    const secret = this.newSecret();
    this.secrets = [secret, ...this.secrets];
    return secret;
  }

  expireOldSecrets(): void {
    this.secrets = this.secrets.slice(0, 1);
  }

  flush(): void {
    const batch = this.held.reverse();
    this.held = [];
    for (const event of batch) this.send(event);
  }

  async settled(): Promise<void> {
    while (this.pending > 0 || this.held.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  /** Records an event and sends it as the mode says (never, when `drop`). */
  emit(event: StripeEvent, drop: boolean): void {
    this.events.push(event);
    if (drop || this.mode === 'never') {
      this.unsent.push(event.id);
    } else if (this.mode === 'immediate') {
      this.send(event);
    } else if (this.mode === 'twice') {
      this.send(event);
      this.send(event);
    } else if (this.mode === 'late') {
      this.later(this.delayMs, () => this.send(event));
    } else {
      if (this.held.length === 0) this.later(this.delayMs, () => this.flush());
      this.held.push(event);
    }
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.held = [];
    this.pending = 0;
  }

  private later(ms: number, fn: () => void): void {
    this.pending++;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.pending--;
      if (!this.closed) fn();
    }, ms);
    this.timers.add(timer);
  }

  private send(event: StripeEvent, attempt = 1): void {
    this.pending++;
    this.queue = this.queue
      .then(() => this.attempt(event, attempt))
      .finally(() => {
        this.pending--;
      });
  }

  /** One delivery attempt, signed afresh; a failure is retried after the next wait, if any is left. */
  private async attempt(event: StripeEvent, attempt: number): Promise<void> {
    const url = this.url;
    if (url === null || this.closed) return;
    const body = JSON.stringify(event);
    const signature = signatureHeader(body, this.secrets, Math.floor(Date.now() / 1000));
    let status: number | string;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature, 'user-agent': 'Stripe/1.0 (fake)' },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await res.body?.cancel();
      status = res.status;
    } catch (error) {
      status = (error as Error).message;
    }
    this.deliveries.push({ eventId: event.id, type: event.type, attempt, status });
    const ok = typeof status === 'number' && status >= 200 && status < 300;
    const wait = this.retryDelaysMs[attempt - 1];
    if (!ok && wait !== undefined) this.later(wait, () => this.send(event, attempt + 1));
  }
}

export function newEvent(type: string, object: unknown, created: number, request: StripeEvent['request']): StripeEvent {
  return {
    id: newId('evt'),
    object: 'event',
    api_version: API_VERSION,
    created,
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request,
    type,
  };
}
