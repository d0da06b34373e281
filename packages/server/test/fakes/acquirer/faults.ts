// Faults a test arms for the next n requests to an endpoint (or to any endpoint with '*'). Several
// kinds can be armed at once; each request takes at most one fault of each kind.

export const ENDPOINTS = [
  'create_intent',
  'retrieve_intent',
  'search_intents',
  'capture_intent',
  'cancel_intent',
  'retrieve_charge',
  'create_refund',
  'retrieve_refund',
  'retrieve_event',
  'list_events',
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export type FaultKind =
  /** The request is acted on (and its answer saved under its idempotency key), then the connection is destroyed. */
  | 'lose_answer'
  /** 500 api_error before anything changes. Saved under the key, as Stripe saves 500s (unless `remember: false`). */
  | 'error_500_before'
  /** The request is acted on (events included), then 500 api_error is answered and saved under the key instead. */
  | 'error_500_after'
  /** The answer waits `delayMs` before the endpoint starts (the key stays in flight meanwhile). */
  | 'slow'
  /** The request is acted on normally but the events it causes are never sent. */
  | 'drop_webhooks';

export interface FaultOptions {
  /** How many requests it applies to (default 1). */
  times?: number;
  /** For 'slow' (default 1000 ms). */
  delayMs?: number;
  /** For the 500s: whether the idempotency layer saves the 500 (Stripe does; default true). */
  remember?: boolean;
}

export interface ArmedFault {
  endpoint: Endpoint | '*';
  kind: FaultKind;
  remaining: number;
  delayMs: number;
  remember: boolean;
}

export class FaultPlan {
  readonly armed: ArmedFault[] = [];

  arm(endpoint: Endpoint | '*', kind: FaultKind, options: FaultOptions = {}): void {
    const { times = 1, delayMs = 1000, remember = true } = options;
    this.armed.push({ endpoint, kind, remaining: times, delayMs, remember });
  }

  /** The faults this request meets, one per kind, each used up once. */
  take(endpoint: Endpoint): Map<FaultKind, ArmedFault> {
    const taken = new Map<FaultKind, ArmedFault>();
    for (const fault of this.armed) {
      if (fault.remaining <= 0 || taken.has(fault.kind)) continue;
      if (fault.endpoint !== endpoint && fault.endpoint !== '*') continue;
      fault.remaining--;
      taken.set(fault.kind, fault);
    }
    for (let i = this.armed.length - 1; i >= 0; i--) if ((this.armed[i] as ArmedFault).remaining <= 0) this.armed.splice(i, 1);
    return taken;
  }

  clear(): void {
    this.armed.length = 0;
  }
}
