import { sql } from 'kysely';
import type { Db } from '../db/db.ts';
import { present } from '../shared/invariant.ts';

export interface LedgerReport {
  transactions: number;
  entries: number;
  /** Transactions whose entries do not sum to zero in some currency, or that have under two entries. */
  unbalanced: string[];
  /** Wallets whose cached balance differs from the sum of their entries. */
  walletMismatches: { walletId: string; balance: string; entries: string }[];
  /**
   * Wallet lines, in seq order, whose balance_after is not the previous line's plus their
   * amount (the first follows from zero): the wallet's statement would not read as a running
   * balance. With walletMismatches empty, the last line then ends at the cached balance.
   */
  walletChainBreaks: { walletId: string; entryId: string }[];
  negativeWallets: string[];
  /** Succeeded charges without exactly one posting, and other charges with any. */
  chargePostingMismatches: string[];
  /** Succeeded transfers without exactly one posting, and failed ones with any. */
  transferPostingMismatches: string[];
}

/** Checks the whole ledger; tests call it after every flow. An empty report means healthy. */
export async function verifyLedger(db: Db): Promise<LedgerReport> {
  const counts = await sql<{ transactions: string; entries: string }>`
    SELECT (SELECT count(*) FROM ledger_transactions) AS transactions, (SELECT count(*) FROM ledger_entries) AS entries
  `.execute(db);
  const unbalanced = await sql<{ id: string }>`
    SELECT t.id FROM ledger_transactions t
    LEFT JOIN ledger_entries e ON e.transaction_id = t.id
    GROUP BY t.id
    HAVING count(e.id) < 2
    UNION
    SELECT transaction_id FROM ledger_entries GROUP BY transaction_id, currency HAVING sum(amount) <> 0
  `.execute(db);
  const mismatches = await sql<{ wallet_id: string; balance: string; entries: string }>`
    SELECT w.id AS wallet_id, w.balance::text AS balance, coalesce(s.total, 0)::text AS entries
    FROM wallets w
    LEFT JOIN (SELECT account, sum(amount) AS total FROM ledger_entries WHERE account LIKE 'wallet:%' GROUP BY account) s
      ON s.account = 'wallet:' || w.id
    WHERE w.balance <> coalesce(s.total, 0)
  `.execute(db);
  const chain = await sql<{ account: string; id: string }>`
    SELECT account, id FROM (
      SELECT account, id, balance_after, sum(amount) OVER (PARTITION BY account ORDER BY seq) AS running
      FROM ledger_entries WHERE account LIKE 'wallet:%'
    ) e
    WHERE balance_after IS DISTINCT FROM running
    ORDER BY account, id
  `.execute(db);
  const negative = await sql<{ id: string }>`SELECT id FROM wallets WHERE balance < 0`.execute(db);
  const postings = await sql<{ id: string }>`
    SELECT c.id FROM charges c
    LEFT JOIN ledger_transactions t ON t.source_id = c.id
    GROUP BY c.id, c.status
    HAVING (c.status = 'succeeded') <> (count(t.id) = 1) OR count(t.id) > 1
  `.execute(db);
  const transfers = await sql<{ id: string }>`
    SELECT tr.id FROM transfers tr
    LEFT JOIN ledger_transactions t ON t.source_type = 'transfer' AND t.source_id = tr.id
    GROUP BY tr.id, tr.status
    HAVING (tr.status = 'succeeded') <> (count(t.id) = 1) OR count(t.id) > 1
  `.execute(db);
  return {
    transactions: Number(present(counts.rows[0], 'counts').transactions),
    entries: Number(present(counts.rows[0], 'counts').entries),
    unbalanced: unbalanced.rows.map((r) => r.id),
    walletMismatches: mismatches.rows.map((r) => ({ walletId: r.wallet_id, balance: r.balance, entries: r.entries })),
    walletChainBreaks: chain.rows.map((r) => ({ walletId: r.account.slice('wallet:'.length), entryId: r.id })),
    negativeWallets: negative.rows.map((r) => r.id),
    chargePostingMismatches: postings.rows.map((r) => r.id),
    transferPostingMismatches: transfers.rows.map((r) => r.id),
  };
}

export function isHealthy(report: LedgerReport): boolean {
  return (
    report.unbalanced.length === 0 &&
    report.walletMismatches.length === 0 &&
    report.walletChainBreaks.length === 0 &&
    report.negativeWallets.length === 0 &&
    report.chargePostingMismatches.length === 0 &&
    report.transferPostingMismatches.length === 0
  );
}
