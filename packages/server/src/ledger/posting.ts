import { type RawBuilder, sql } from 'kysely';
import type { Cte } from '../db/cte.ts';

/**
 * The ledger's postings. This folder writes ledger_transactions, ledger_entries and the balances
 * (wallet-balance.ts, merchant-balance.ts), as SQL fragments the domain that moves money composes
 * into its own statement, so a posting always commits with the change it records. verify.ts
 * checks the whole ledger after the fact. The folder imports no domain.
 */

/** A posting's step: 'hold', 'final' or 'reversal' (a refund that failed after it succeeded), or an expression choosing one per row. */
export type Step = 'hold' | 'final' | 'reversal' | RawBuilder<'hold' | 'final'>;

/** The next application order (ledger_entries.seq, migration 005). */
export const nextEntrySeq = sql`nextval('ledger_entry_seq')`;

/** One side of a posting: expressions over the rows; `seq` is required of a wallet's line. */
export interface PostingLine {
  id: RawBuilder<unknown>;
  account: RawBuilder<unknown>;
  /** The wallet's balance after this line, for a wallet account; NULL otherwise. */
  balanceAfter: RawBuilder<unknown>;
  /**
   * The seq its wallet UPDATE drew (wallet-balance.ts), under the row lock, so the wallet's lines
   * sort in the order their moves were applied: required of a line that is (or may be, row by
   * row) a wallet's. 'not a wallet line' draws it when inserted (a seq drawn there could come
   * before the wallet's lock in some plan, and the statement would misorder).
   */
  seq: RawBuilder<unknown> | 'not a wallet line';
}

/**
 * The CTEs `<transactions> AS (…), <entries> AS (…)`: for each row of `from`, one ledger
 * transaction of two lines, `amount` out of `out` and into `in`. Balanced by construction (one
 * amount, negated once), so an unbalanced posting cannot be written; every value is an
 * expression over `from`'s columns. 'hold': an outflow's posting when it is created, before the
 * provider's answer brings its final one; the unique (source_type, source_id, step) index lets
 * each be written once.
 */
export function postingCtes(p: {
  names: { transactions: Cte; entries: Cte };
  from: RawBuilder<unknown>;
  transactionId: RawBuilder<unknown>;
  merchantId: RawBuilder<unknown>;
  sourceType: RawBuilder<unknown>;
  sourceId: RawBuilder<unknown>;
  at: RawBuilder<unknown>;
  currency: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  out: PostingLine;
  in: PostingLine;
  step?: Step;
}): RawBuilder<unknown> {
  const step = p.step === undefined || typeof p.step === 'string' ? sql.lit(p.step ?? 'final') : p.step;
  const entry = (line: PostingLine, amount: RawBuilder<unknown>) =>
    sql`SELECT ${line.id}, ${p.transactionId}, ${line.account}, ${p.currency}, ${amount}, ${line.balanceAfter}, ${p.sourceType},
             ${p.sourceId}, ${p.at}, ${line.seq === 'not a wallet line' ? nextEntrySeq : line.seq}
      FROM ${p.from}`;
  return sql`${p.names.transactions.ref} AS (
      INSERT INTO ledger_transactions (id, merchant_id, source_type, source_id, step, created_at)
      SELECT ${p.transactionId}, ${p.merchantId}, ${p.sourceType}, ${p.sourceId}, ${step}::text, ${p.at} FROM ${p.from}
    ), ${p.names.entries.ref} AS (
      INSERT INTO ledger_entries (id, transaction_id, account, currency, amount, balance_after, source_type, source_id, created_at, seq)
      ${entry(p.out, sql`-(${p.amount})`)}
      UNION ALL
      ${entry(p.in, p.amount)}
    )`;
}
