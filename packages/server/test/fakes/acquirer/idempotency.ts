// Stripe's idempotency layer for POST requests (docs.stripe.com/api/idempotent_requests and
// /error-low-level): keys belong to the account of the secret key; the first answer given once the
// endpoint began is saved, whatever it was (a 402, a 400 unexpected state, a 500), and replayed
// with `Idempotent-Replayed: true`; the same key with another endpoint or other parameters is a 400
// idempotency_error; a key whose first request is still running is a 409 idempotency_key_in_use.
// Requests refused by validation, and 409s, save nothing: they can be retried. Keys are forgotten
// after 24 hours.
import type { Answer } from './errors.ts';

interface Entry {
  fingerprint: string;
  createdAt: number;
  saved: (Answer & { requestId: string }) | null;
}

export type Begin =
  | { kind: 'new' }
  | { kind: 'in_use' }
  | { kind: 'mismatch'; firstFingerprint: string }
  | { kind: 'replay'; answer: Answer; originalRequest: string };

const DAY_MS = 24 * 3600 * 1000;

export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number) {}

  private static id(account: string, key: string): string {
    return `${account}\u0000${key}`;
  }

  /** Looks the key up and, when it is new, marks it in flight. */
  begin(account: string, key: string, fingerprint: string): Begin {
    const id = IdempotencyStore.id(account, key);
    const entry = this.entries.get(id);
    if (entry && entry.createdAt + DAY_MS <= this.now()) this.entries.delete(id);
    const live = this.entries.get(id);
    if (!live) {
      this.entries.set(id, { fingerprint, createdAt: this.now(), saved: null });
      return { kind: 'new' };
    }
    if (live.saved === null) return { kind: 'in_use' };
    if (live.fingerprint !== fingerprint) return { kind: 'mismatch', firstFingerprint: live.fingerprint };
    return { kind: 'replay', answer: { status: live.saved.status, body: live.saved.body }, originalRequest: live.saved.requestId };
  }

  /** Saves the answer the endpoint gave (the one replayed from now on). */
  save(account: string, key: string, answer: Answer, requestId: string): void {
    const entry = this.entries.get(IdempotencyStore.id(account, key));
    if (entry) entry.saved = { ...answer, requestId };
  }

  /** Forgets a key whose request never began (validation refused it): it may be retried. */
  release(account: string, key: string): void {
    const id = IdempotencyStore.id(account, key);
    if (this.entries.get(id)?.saved === null) this.entries.delete(id);
  }

  /** How many keys are remembered (in flight or saved). */
  get size(): number {
    return this.entries.size;
  }
}
