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
  /**
   * Merchant funds whose numbers disagree (merchant:currency): the merchant account's entries
   * must equal credited − debited, the reserved account's entries the reserved column, and that
   * the sum of the pending refunds and payouts; neither may be negative.
   */
  fundsMismatches: string[];
  /**
   * Payments whose refunds (neither failed nor reversed by a late failure) exceed what was
   * received, or differ from amount_refunded.
   */
  overRefunded: string[];
  /**
   * Refunds and payouts posted wrongly: pending with no hold or a final posting; final without
   * exactly one final posting (a failure decided when it was created has none at all); a hold
   * on a wallet outflow; a failed one whose hold is not matched by a final posting; a 'reversal'
   * posting anywhere but on a succeeded refund whose late outcome is a failure, or missing there.
   */
  outflowPostingMismatches: string[];
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
  const funds = await sql<{ key: string }>`
    WITH cols AS (
      SELECT merchant_id, currency, sum(credited) - sum(debited) AS available, sum(reserved) AS reserved
      FROM merchant_balances GROUP BY merchant_id, currency
    ), entries AS (
      SELECT split_part(account, ':', 2) AS merchant_id, currency,
        sum(amount) FILTER (WHERE account LIKE 'merchant:%') AS available,
        sum(amount) FILTER (WHERE account LIKE 'reserved:%') AS reserved
      FROM ledger_entries WHERE account LIKE 'merchant:%' OR account LIKE 'reserved:%'
      GROUP BY 1, currency
    ), pending AS (
      SELECT merchant_id, currency, sum(amount) AS reserved FROM outflows WHERE status = 'pending' GROUP BY merchant_id, currency
    )
    SELECT coalesce(c.merchant_id, e.merchant_id, p.merchant_id) || ':' || coalesce(c.currency, e.currency, p.currency) AS key
    FROM cols c
    FULL JOIN entries e ON e.merchant_id = c.merchant_id AND e.currency = c.currency
    FULL JOIN pending p ON p.merchant_id = coalesce(c.merchant_id, e.merchant_id) AND p.currency = coalesce(c.currency, e.currency)
    WHERE coalesce(c.available, 0) <> coalesce(e.available, 0) OR coalesce(c.reserved, 0) <> coalesce(e.reserved, 0)
       OR coalesce(c.reserved, 0) <> coalesce(p.reserved, 0) OR coalesce(c.available, 0) < 0 OR coalesce(c.reserved, 0) < 0
  `.execute(db);
  const refunds = await sql<{ id: string }>`
    SELECT c.id FROM charges c
    LEFT JOIN outflows o ON o.payment_id = c.id AND o.status <> 'failed'
      AND NOT EXISTS (SELECT 1 FROM ledger_transactions r WHERE r.source_type = o.kind AND r.source_id = o.id AND r.step = 'reversal')
    WHERE c.kind = 'payment'
    GROUP BY c.id, c.amount, c.amount_received, c.amount_refunded
    HAVING coalesce(sum(o.amount), 0) > coalesce(c.amount_received, c.amount) OR coalesce(sum(o.amount), 0) <> c.amount_refunded
  `.execute(db);
  const outflowPostings = await outflowPostingMismatches(db);
  return {
    transactions: Number(present(counts.rows[0], 'counts').transactions),
    entries: Number(present(counts.rows[0], 'counts').entries),
    unbalanced: unbalanced.rows.map((r) => r.id),
    walletMismatches: mismatches.rows.map((r) => ({ walletId: r.wallet_id, balance: r.balance, entries: r.entries })),
    walletChainBreaks: chain.rows.map((r) => ({ walletId: r.account.slice('wallet:'.length), entryId: r.id })),
    negativeWallets: negative.rows.map((r) => r.id),
    chargePostingMismatches: postings.rows.map((r) => r.id),
    transferPostingMismatches: transfers.rows.map((r) => r.id),
    fundsMismatches: funds.rows.map((r) => r.key),
    overRefunded: refunds.rows.map((r) => r.id),
    outflowPostingMismatches: outflowPostings,
  };
}

/** Refunds and payouts whose postings disagree with their status (see LedgerReport.outflowPostingMismatches). */
async function outflowPostingMismatches(db: Db): Promise<string[]> {
  const result = await sql<{ id: string }>`
    SELECT o.id FROM outflows o
    LEFT JOIN ledger_transactions t ON t.source_type = o.kind AND t.source_id = o.id
    GROUP BY o.id, o.kind, o.status, o.destination_type, o.late_outcome
    HAVING (count(*) FILTER (WHERE t.step = 'reversal') = 1) IS DISTINCT FROM
          (o.kind = 'refund' AND o.status = 'succeeded' AND coalesce(o.late_outcome ->> 'status' = 'failed', false))
        OR (o.status = 'pending' AND (count(*) FILTER (WHERE t.step = 'hold') <> 1 OR count(*) FILTER (WHERE t.step = 'final') <> 0))
        OR (o.status = 'succeeded' AND count(*) FILTER (WHERE t.step = 'final') <> 1)
        OR (o.status = 'failed' AND count(*) FILTER (WHERE t.step = 'final') <> count(*) FILTER (WHERE t.step = 'hold'))
        OR (o.destination_type = 'wallet' AND count(*) FILTER (WHERE t.step = 'hold') > 0)
        OR (o.destination_type <> 'wallet' AND o.status = 'succeeded' AND count(*) FILTER (WHERE t.step = 'hold') <> 1)
  `.execute(db);
  return result.rows.map((r) => r.id);
}

export function isHealthy(report: LedgerReport): boolean {
  return (
    report.unbalanced.length === 0 &&
    report.walletMismatches.length === 0 &&
    report.walletChainBreaks.length === 0 &&
    report.negativeWallets.length === 0 &&
    report.chargePostingMismatches.length === 0 &&
    report.transferPostingMismatches.length === 0 &&
    report.fundsMismatches.length === 0 &&
    report.overRefunded.length === 0 &&
    report.outflowPostingMismatches.length === 0
  );
}
