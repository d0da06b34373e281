import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../db/db.ts';
import { nextEntrySeq } from './posting.ts';

/**
 * A wallet's cached balance moves only here, always in the statement that posts the entries
 * explaining the move (CHECK (balance >= 0) is the backstop against a bug).
 *
 * Both moves return `seq`, the wallet line's application order, drawn in RETURNING: that runs
 * only after the row is updated, and the row lock is held until commit, so a later move of the
 * same wallet can draw its value only after this one committed. Its line must carry that seq.
 */

/** How a debit decides: the database's own conditional UPDATE, or the negative control's broken read. */
export type DebitMode = { kind: 'conditional' } | { kind: 'unlocked-read'; balance: bigint };

/**
 * `UPDATE wallets … RETURNING balance, seq`: debits an active wallet of the merchant that covers the
 * amount, or changes nothing. The row lock serialises concurrent debits of one wallet and the
 * condition is evaluated on the locked row, so a balance can never be spent twice. `when` is a
 * further condition of the caller's (a transfer's destination must be active too), so that a
 * debit it refuses never happens rather than being undone.
 */
export function walletDebit(
  p: { walletId: string; merchantId: string; amount: bigint; now: Date; when?: RawBuilder<unknown> },
  mode: DebitMode,
): RawBuilder<unknown> {
  const amount = p.amount.toString();
  const { debit, covered } =
    mode.kind === 'conditional'
      ? { debit: sql`balance - ${amount}::bigint`, covered: sql`balance >= ${amount}::bigint` }
      : unlockedDebit(mode.balance, p.amount);
  return sql`UPDATE wallets SET balance = ${debit}, updated_at = ${p.now}::timestamptz
      WHERE id = ${p.walletId} AND merchant_id = ${p.merchantId} AND status = 'active' AND ${covered}${p.when ? sql` AND ${p.when}` : sql``}
      RETURNING balance, ${nextEntrySeq} AS seq`;
}

/**
 * walletDebit for each row of `from` (a statement over many items, group-commit.ts MergedWrite):
 * `UPDATE wallets … FROM from … RETURNING returning, balance, seq`, the same condition on each
 * locked row. A statement can update a row only once, so each wallet is in `from` at most once
 * (the batcher's key); expressions may name `from`'s columns.
 */
export function walletDebitEach(p: {
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
 * WRONG ON PURPOSE (negative control only): the balance was read without a lock and is checked
 * here in JavaScript, then the statement writes the absolute result. Concurrent debits lose updates.
 */
function unlockedDebit(balance: bigint, amount: bigint) {
  const ok = balance >= amount;
  return { debit: sql`${(ok ? balance - amount : balance).toString()}::bigint`, covered: ok ? sql`true` : sql`false` };
}

/** The negative control's read, in its own round trip before the statement (see unlockedDebit). */
export async function readBalanceUnlocked(db: Db, walletId: string): Promise<DebitMode> {
  const row = await db.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirst();
  return { kind: 'unlocked-read', balance: BigInt(row?.balance ?? '0') };
}

/**
 * `UPDATE wallets … RETURNING [returning,] wallets.balance, seq`: credits `amount` to the wallet
 * `walletId` names, for each row of `from` that passes `where`. All expressions may name columns
 * of `from`. A statement can update a row only once: over many items (group-commit.ts
 * MergedWrite), each wallet is in `from` at most once (the batcher's key), and `returning` names
 * the item each returned row belongs to.
 */
export function walletCredit(p: {
  from: RawBuilder<unknown>;
  walletId: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
  now: Date | RawBuilder<unknown>;
  returning?: RawBuilder<unknown>;
}): RawBuilder<unknown> {
  return sql`UPDATE wallets SET balance = wallets.balance + ${p.amount}, updated_at = ${p.now}::timestamptz
      FROM ${p.from} WHERE wallets.id = ${p.walletId} AND ${p.where}
      RETURNING ${p.returning ? sql`${p.returning}, ` : sql``}wallets.balance, ${nextEntrySeq} AS seq`;
}

/**
 * The CTEs `<name>_wallets AS (…), <name> AS (…)`: credits for each row of `from` that passes
 * `where`, where one wallet may be credited by several rows (an outflow batch's refunds to one
 * customer): each wallet is updated once, by the sum of its rows, and its RETURNING draws one
 * seq per row under the row lock. `<name>` then has one row per credited item: `item`, its
 * `balance` after its own credit (the wallet's new balance less the later rows' amounts, by
 * `order`) and its `seq` (the wallet's seqs in the same order), as if each had been applied alone.
 */
export function walletCreditsCtes(p: {
  name: string;
  from: RawBuilder<unknown>;
  item: RawBuilder<unknown>;
  walletId: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  /** The rows' application order within a wallet (their arrival order). */
  order: RawBuilder<unknown>;
  now: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
}): RawBuilder<unknown> {
  const wallets = sql.id(`${p.name}_wallets`);
  const rows = sql`SELECT ${p.item} AS item, ${p.walletId} AS w, ${p.amount} AS a, ${p.order} AS o, ${p.now} AS t FROM ${p.from} WHERE ${p.where}`;
  return sql`${wallets} AS (
      UPDATE wallets SET balance = wallets.balance + g.total, updated_at = g.t
      FROM (SELECT w, sum(a)::bigint AS total, count(*)::int AS n, max(t) AS t FROM (${rows}) x GROUP BY w) g
      WHERE wallets.id = g.w
      RETURNING wallets.id, wallets.balance,
        (SELECT array_agg(s ORDER BY s) FROM (SELECT ${nextEntrySeq} AS s FROM generate_series(1, g.n)) q) AS seqs
    ), ${sql.id(p.name)} AS (
      SELECT x.item, cw.balance - coalesce(sum(x.a) OVER (PARTITION BY x.w ORDER BY x.o ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), 0) AS balance,
        cw.seqs[(row_number() OVER (PARTITION BY x.w ORDER BY x.o))::int] AS seq
      FROM (${rows}) x JOIN ${wallets} cw ON cw.id = x.w
    )`;
}
