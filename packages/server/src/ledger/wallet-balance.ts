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
