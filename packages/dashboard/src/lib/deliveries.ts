import type { WebhookDelivery } from '@purse/sdk';

/**
 * One attempt of a delivery. `response_excerpt` (the start of what the receiver answered, at most
 * 200 characters, or null) is optional: an API without it still renders.
 */
export type DeliveryAttempt = WebhookDelivery['attempts'][number] & { response_excerpt?: string | null };
export type Delivery = Omit<WebhookDelivery, 'attempts'> & { attempts: DeliveryAttempt[] };

/** How long ahead a pending delivery's next attempt keeps the page refreshing. */
const SOON_MS = 30_000;

/**
 * True while a pending delivery's next attempt is due within half a minute: worth refreshing for.
 * A failing endpoint's next retry is minutes or hours away, and the page stops asking meanwhile.
 */
export function attemptDueSoon(deliveries: Delivery[], now = Date.now()): boolean {
  return deliveries.some((d) => d.status === 'pending' && (d.next_attempt_at === null || Date.parse(d.next_attempt_at) - now <= SOON_MS));
}
