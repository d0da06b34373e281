// Payments, top-ups, refunds and payouts share one list page and one detail page: they have the
// same shape (reference, status, amount, currency, a means) and the same sandbox controls.
import type { PageIterator, Payment, Payout, Purse, Refund, Topup } from '@purse/sdk';

/**
 * Money moving in (a payment, a top-up) or out (a refund, a payout) through a means. Not the
 * server's charges, which are payments and top-ups only.
 */
export type MoneyMovement = Payment | Topup | Refund | Payout;
export type MovementKind = 'payments' | 'topups' | 'refunds' | 'payouts';

export interface KindInfo {
  title: string;
  singular: string;
  /** The API filters this list by means (payment_method_type). */
  meansFilter: boolean;
  /** What the list's status filter offers: the statuses this kind of object takes. */
  statuses: readonly string[];
  resource(client: Purse): {
    retrieve(id: string): Promise<MoneyMovement>;
    list(params: Record<string, string>): PageIterator<MoneyMovement>;
  };
  sandbox(client: Purse): { succeed(id: string): Promise<unknown>; fail(id: string): Promise<unknown> };
}

/** Payments and top-ups (charges): a card may wait for 3-D Secure or for its capture, or be canceled. */
const CHARGE_STATUSES = [
  'pending',
  'requires_action',
  'requires_capture',
  'succeeded',
  'failed',
  'canceled',
] as const satisfies readonly Payment['status'][];
const OUTFLOW_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const KINDS: Record<MovementKind, KindInfo> = {
  payments: {
    title: 'Payments',
    singular: 'Payment',
    meansFilter: true,
    statuses: CHARGE_STATUSES,
    resource: (c) => c.payments,
    sandbox: (c) => c.sandbox.payments,
  },
  topups: {
    title: 'Top-ups',
    singular: 'Top-up',
    meansFilter: true,
    statuses: CHARGE_STATUSES,
    resource: (c) => c.topups,
    sandbox: (c) => c.sandbox.topups,
  },
  refunds: {
    title: 'Refunds',
    singular: 'Refund',
    meansFilter: false,
    statuses: OUTFLOW_STATUSES,
    resource: (c) => c.refunds,
    sandbox: (c) => c.sandbox.refunds,
  },
  payouts: {
    title: 'Payouts',
    singular: 'Payout',
    meansFilter: false,
    statuses: OUTFLOW_STATUSES,
    resource: (c) => c.payouts,
    sandbox: (c) => c.sandbox.payouts,
  },
};

export function isMovementKind(section: string): section is MovementKind {
  return Object.hasOwn(KINDS, section);
}

/** How the money moved: the payment method, the top-up's source, or the refund's or payout's destination. */
export function meansOf(movement: MoneyMovement): string {
  if ('payment_method' in movement) return movement.payment_method.type;
  if ('source' in movement) return movement.source.type;
  if ('destination' in movement) return (movement.destination as { type: string }).type;
  return '';
}
