import { type RawBuilder, sql } from 'kysely';

/**
 * What a payment has refunded (charges.amount_refunded), as fragments of the refund and refund
 * outcome statements the outflows folder composes: the cap is decided on the payment's locked
 * row, and the CHECK (amount_refunded <= amount) is the backstop.
 */

/**
 * `SELECT … FOR UPDATE` of the payments `ids` (an SQL array), in id order, the body of a refund
 * statement's first CTE: the row lock serialises the refunds of one payment, and what is left is
 * read from the locked (current) row. Returns id, merchant_id, status, amount (what was received:
 * a partial capture's, else the whole amount), amount_refunded;
 * the caller joins them on id and merchant. Values only in the condition (see wallets/store.ts
 * lockWalletsSql): a row changed meanwhile is always locked, on its new version.
 */
export function lockPaymentsForRefund(p: { ids: RawBuilder<unknown> }): RawBuilder<unknown> {
  return sql`SELECT c.id, c.merchant_id, c.status, coalesce(c.amount_received, c.amount) AS amount, c.amount_refunded FROM charges c
      WHERE c.id = ANY (${p.ids}::text[]) AND c.kind = 'payment'
      ORDER BY c.id FOR UPDATE`;
}

/**
 * `UPDATE charges … FROM from`: each refund of `from` that passes `where` counts against its
 * payment, added to the current value. A statement can update a row only once, so each payment
 * is in `from` at most once (the batcher's key).
 */
export function addRefunded(p: {
  from: RawBuilder<unknown>;
  paymentId: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  now: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
}) {
  return sql`UPDATE charges SET amount_refunded = charges.amount_refunded + ${p.amount}, updated_at = ${p.now}
      FROM ${p.from} WHERE charges.id = ${p.paymentId} AND ${p.where} RETURNING charges.id`;
}

/** `UPDATE charges … FROM from`: a failed refund gives its amount back to its payment. */
export function giveBackRefunded(p: {
  from: RawBuilder<unknown>;
  paymentId: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  now: Date;
  where: RawBuilder<unknown>;
}) {
  return sql`UPDATE charges SET amount_refunded = amount_refunded - ${p.amount}, updated_at = ${p.now}::timestamptz
      FROM ${p.from} WHERE charges.id = ${p.paymentId} AND ${p.where} RETURNING charges.id`;
}
