// Payments, top-ups, refunds and payouts share one list page and one detail page: they have the
// same shape (reference, status, amount, currency, a means) and the same sandbox controls.
import type { PageIterator, Payment, Payout, Purse, Refund, Topup } from '@purse/sdk';

export type Charge = Payment | Topup | Refund | Payout;
export type ChargeKind = 'payments' | 'topups' | 'refunds' | 'payouts';

export interface KindInfo {
  title: string;
  singular: string;
  /** The API filters this list by means (payment_method_type). */
  meansFilter: boolean;
  resource(client: Purse): {
    retrieve(id: string): Promise<Charge>;
    list(params: Record<string, string>): PageIterator<Charge>;
  };
  sandbox(client: Purse): { succeed(id: string): Promise<unknown>; fail(id: string): Promise<unknown> };
}

export const KINDS: Record<ChargeKind, KindInfo> = {
  payments: {
    title: 'Payments',
    singular: 'Payment',
    meansFilter: true,
    resource: (c) => c.payments,
    sandbox: (c) => c.sandbox.payments,
  },
  topups: { title: 'Top-ups', singular: 'Top-up', meansFilter: true, resource: (c) => c.topups, sandbox: (c) => c.sandbox.topups },
  refunds: { title: 'Refunds', singular: 'Refund', meansFilter: false, resource: (c) => c.refunds, sandbox: (c) => c.sandbox.refunds },
  payouts: { title: 'Payouts', singular: 'Payout', meansFilter: false, resource: (c) => c.payouts, sandbox: (c) => c.sandbox.payouts },
};

export function isChargeKind(section: string): section is ChargeKind {
  return Object.hasOwn(KINDS, section);
}

/** How the money moved: the payment method, the top-up's source, or the refund's or payout's destination. */
export function meansOf(charge: Charge): string {
  if ('payment_method' in charge) return charge.payment_method.type;
  if ('source' in charge) return charge.source.type;
  if ('destination' in charge) return (charge.destination as { type: string }).type;
  return '';
}
