import { type RawBuilder, sql } from 'kysely';
import { isWalletAccount } from './accounts.ts';
import { assertBalanced } from './service.ts';
import { LedgerInvariantError } from './types.ts';

/** One line of a posting. `amount` is the SQL expression of the signed minor units. */
export interface PostingLine {
  id: string;
  account: string;
  currency: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  /** The wallet's balance after this line, for a wallet account; NULL otherwise. */
  balanceAfter: RawBuilder<unknown>;
  /**
   * Required for a wallet line: the `seq` its wallet UPDATE returned (walletDebit, walletCredit),
   * drawn under the row lock, so the wallet's lines sort in the order their moves were applied.
   * Other lines leave it out and draw theirs when inserted.
   */
  seq?: RawBuilder<unknown>;
}

/** A posting's step: 'hold' or 'final', or (over many rows) an expression choosing one per row. */
export type Step = 'hold' | 'final' | RawBuilder<'hold' | 'final'>;

/** The next application order (ledger_entries.seq, migration 005). */
export const nextEntrySeq = sql`nextval('ledger_entry_seq')`;

export interface Posting {
  /** FROM (and WHERE) of the posting: it is written once per row, so never when it is empty. */
  from: RawBuilder<unknown>;
  transactionId: string;
  merchantId: RawBuilder<unknown>;
  sourceType: RawBuilder<unknown>;
  sourceId: RawBuilder<unknown>;
  at: RawBuilder<unknown>;
  lines: PostingLine[];
  /**
   * 'hold': an outflow's posting when it is created, before the provider's answer brings its
   * final one. The unique (source_type, source_id, step) index lets each be written once.
   */
  step?: Step;
}

/**
 * The CTEs `ltx AS (…), entries AS (…)` that write one balanced ledger transaction inside the
 * statement making the change it records. `check` is the same posting in numbers: it must
 * balance before any SQL is built, so an unbalanced posting never reaches the database.
 */
export function postingCtes(p: Posting, check: Parameters<typeof assertBalanced>[0]): RawBuilder<unknown> {
  assertBalanced(check);
  for (const line of p.lines) {
    // A seq drawn here could come before the wallet's lock in some plan: the statement would misorder.
    if (isWalletAccount(line.account) && !line.seq)
      throw new LedgerInvariantError(`wallet line ${line.account} without the seq of its wallet UPDATE`);
  }
  return postingSql(p);
}

/** The CTEs of a posting whose values may all be expressions over `from`'s columns. */
function postingSql(p: {
  from: RawBuilder<unknown>;
  transactionId: string | RawBuilder<unknown>;
  merchantId: RawBuilder<unknown>;
  sourceType: RawBuilder<unknown>;
  sourceId: RawBuilder<unknown>;
  at: RawBuilder<unknown>;
  step?: Step;
  lines: {
    id: string | RawBuilder<unknown>;
    account: string | RawBuilder<unknown>;
    currency: RawBuilder<unknown>;
    amount: RawBuilder<unknown>;
    balanceAfter: RawBuilder<unknown>;
    seq?: RawBuilder<unknown>;
  }[];
}): RawBuilder<unknown> {
  const step = p.step === undefined || typeof p.step === 'string' ? sql.lit(p.step ?? 'final') : p.step;
  const entries = p.lines.map(
    (line) =>
      sql`SELECT ${line.id}, ${p.transactionId}, ${line.account}, ${line.currency}, ${line.amount}, ${line.balanceAfter}, ${p.sourceType},
             ${p.sourceId}, ${p.at}, ${line.seq ?? nextEntrySeq}
      FROM ${p.from}`,
  );
  return sql`ltx AS (
      INSERT INTO ledger_transactions (id, merchant_id, source_type, source_id, step, created_at)
      SELECT ${p.transactionId}, ${p.merchantId}, ${p.sourceType}, ${p.sourceId}, ${step}::text, ${p.at} FROM ${p.from}
    ), entries AS (
      INSERT INTO ledger_entries (id, transaction_id, account, currency, amount, balance_after, source_type, source_id, created_at, seq)
      ${sql.join(entries, sql` UNION ALL `)}
    )`;
}

/** One line of postingEachCtes: expressions over the rows; `seq` is required of a wallet's line. */
export interface EachLine {
  id: RawBuilder<unknown>;
  account: RawBuilder<unknown>;
  balanceAfter: RawBuilder<unknown>;
  /**
   * The seq its wallet UPDATE drew, for a line that is (or may be, row by row) a wallet's; 'not a
   * wallet line' draws it when inserted.
   */
  seq: RawBuilder<unknown> | 'not a wallet line';
}

/**
 * The CTEs `ltx AS (…), entries AS (…)` of a statement over many items: for each row of `from`,
 * one ledger transaction of two lines, `amount` out of `out` and into `in`. Balanced by
 * construction (one amount, negated once); every value is an expression over `from`'s columns.
 */
export function postingEachCtes(p: {
  from: RawBuilder<unknown>;
  transactionId: RawBuilder<unknown>;
  merchantId: RawBuilder<unknown>;
  sourceType: RawBuilder<unknown>;
  sourceId: RawBuilder<unknown>;
  at: RawBuilder<unknown>;
  currency: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  out: EachLine;
  in: EachLine;
  step?: Step;
}): RawBuilder<unknown> {
  const line = (l: EachLine, amount: RawBuilder<unknown>) => ({
    id: l.id,
    account: l.account,
    currency: p.currency,
    amount,
    balanceAfter: l.balanceAfter,
    ...(l.seq === 'not a wallet line' ? {} : { seq: l.seq }),
  });
  return postingSql({ ...p, lines: [line(p.out, sql`-(${p.amount})`), line(p.in, p.amount)] });
}
