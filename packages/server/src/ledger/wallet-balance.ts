import { type RawBuilder, sql } from 'kysely';
import type { Cte } from '../db/cte.ts';
import { nextEntrySeq } from './posting.ts';

/**
 * A wallet's cached balance moves only here, always in the statement that posts the entries
 * explaining the move (CHECK (balance >= 0) is the backstop against a bug). Each fragment works
 * over the rows of `from`, one per item of a merged statement (db/group-commit.ts MergedWrite);
 * one item is the single case. Expressions may name `from`'s columns.
 *
 * Every move returns `seq`, the wallet line's application order, drawn in RETURNING: that runs
 * only after the row is updated, and the row lock is held until commit, so a later move of the
 * same wallet can draw its value only after this one committed. Its line must carry that seq.
 */

/**
 * `UPDATE wallets … FROM from … RETURNING returning, balance, seq`: debits each active wallet of
 * the merchant that covers the amount, or changes nothing. The row lock serialises concurrent
 * debits of one wallet and the condition is evaluated on the locked row, so a balance can never
 * be spent twice. A statement can update a row only once, so each wallet is in `from` at most
 * once (the batcher's key).
 */
export function walletDebit(p: {
  from: RawBuilder<unknown>;
  walletId: RawBuilder<unknown>;
  merchantId: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  now: RawBuilder<unknown>;
  returning: RawBuilder<unknown>;
}): RawBuilder<unknown> {
  return sql`UPDATE wallets SET balance = wallets.balance - ${p.amount}, updated_at = ${p.now}
      FROM ${p.from}
      WHERE wallets.id = ${p.walletId} AND wallets.merchant_id = ${p.merchantId} AND wallets.status = 'active'
        AND wallets.balance >= ${p.amount}
      RETURNING ${p.returning}, wallets.balance, ${nextEntrySeq} AS seq`;
}

/**
 * `UPDATE wallets … RETURNING returning, wallets.balance, seq`: credits `amount` to the wallet
 * `walletId` names, for each row of `from` that passes `where`. Each wallet is in `from` at most
 * once (the batcher's key); `returning` names the item each returned row belongs to.
 */
export function walletCredit(p: {
  from: RawBuilder<unknown>;
  walletId: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
  now: RawBuilder<unknown>;
  returning: RawBuilder<unknown>;
}): RawBuilder<unknown> {
  return sql`UPDATE wallets SET balance = wallets.balance + ${p.amount}, updated_at = ${p.now}
      FROM ${p.from} WHERE wallets.id = ${p.walletId} AND ${p.where}
      RETURNING ${p.returning}, wallets.balance, ${nextEntrySeq} AS seq`;
}

/**
 * The CTEs `<wallets> AS (…), <credits> AS (…)`: credits for each row of `from` that passes
 * `where`, where one wallet may be credited by several rows (an outflow batch's refunds to one
 * customer): each wallet is updated once, by the sum of its rows, and its RETURNING draws one
 * seq per row under the row lock. `credits` then has one row per credited item: `item`, its
 * `balance` after its own credit (the wallet's new balance less the later rows' amounts, by
 * `order`) and its `seq` (the wallet's seqs in the same order), as if each had been applied alone.
 */
export function walletCreditsCtes(p: {
  names: { wallets: Cte; credits: Cte };
  from: RawBuilder<unknown>;
  item: RawBuilder<unknown>;
  walletId: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  /** The rows' application order within a wallet (their arrival order). */
  order: RawBuilder<unknown>;
  now: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
}): RawBuilder<unknown> {
  const wallets = p.names.wallets.ref;
  const rows = sql`SELECT ${p.item} AS item, ${p.walletId} AS w, ${p.amount} AS a, ${p.order} AS o, ${p.now} AS t FROM ${p.from} WHERE ${p.where}`;
  return sql`${wallets} AS (
      UPDATE wallets SET balance = wallets.balance + g.total, updated_at = g.t
      FROM (SELECT w, sum(a)::bigint AS total, count(*)::int AS n, max(t) AS t FROM (${rows}) x GROUP BY w) g
      WHERE wallets.id = g.w
      RETURNING wallets.id, wallets.balance,
        (SELECT array_agg(s ORDER BY s) FROM (SELECT ${nextEntrySeq} AS s FROM generate_series(1, g.n)) q) AS seqs
    ), ${p.names.credits.ref} AS (
      SELECT x.item, cw.balance - coalesce(sum(x.a) OVER (PARTITION BY x.w ORDER BY x.o ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), 0) AS balance,
        cw.seqs[(row_number() OVER (PARTITION BY x.w ORDER BY x.o))::int] AS seq
      FROM (${rows}) x JOIN ${wallets} cw ON cw.id = x.w
    )`;
}
