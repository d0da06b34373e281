// Money writes broken on purpose: production's merged statements (src/charges/store/wallet-payments.ts,
// src/transfers/store.ts, src/outflows/store/create.ts), rewritten here, in the test, so that a
// rule the database enforces is decided on a stale read instead. Wired in place of the real ones
// by test/negative-control.ts (buildTestApp's `wiring.writes`); nothing in src/ can choose them.
//
// The stale read: a sub-select of the row being updated reads the statement's snapshot, taken
// when the statement started, while the UPDATE itself waits for the row lock and then sees the
// committed row. A value computed from the sub-select is what another transaction's commit made
// stale: two concurrent statements each write "what I read, less my amount" (lost updates), and
// each checks its rule against what it read. The race shows only when statements of one wallet
// or merchant run concurrently: the controls run with the group commit's lanes off.
import { type RawBuilder, sql } from 'kysely';
import { walletPayments } from '../../src/charges/store/wallet-payments.ts';
import type { MergedWrite } from '../../src/db/group-commit.ts';
import { compileStatement } from '../../src/db/statement-text.ts';
import { outflows } from '../../src/outflows/store/create.ts';
import { transfers } from '../../src/transfers/store.ts';

/** `text` with each `from` replaced by `to`, exactly `times` times: a control that no longer breaks what it says fails loudly. */
function rewrite(text: string, from: string, to: string, times: number): string {
  const found = text.split(from).length - 1;
  if (found !== times) throw new Error(`negative control: expected ${times} × ${JSON.stringify(from)} in the statement, found ${found}`);
  return text.replaceAll(from, to);
}

function broken<I, R extends { id: string }>(write: MergedWrite<I, R>, name: string, edit: (text: string) => string): MergedWrite<I, R> {
  const compiled = compileStatement(write.statement);
  return { ...write, name, statement: sql.raw(edit(compiled.sql)) as RawBuilder<R> };
}

/** The wallet's balance as the statement's snapshot has it (stale under a concurrent debit). */
const STALE_BALANCE = '(SELECT s.balance FROM wallets s WHERE s.id = wallets.id)';

/** The wallet debit (ledger/wallet-balance.ts walletDebit) computed and checked on the stale balance. */
const staleDebit = (text: string) =>
  rewrite(
    rewrite(text, 'SET balance = wallets.balance - i.amount', `SET balance = ${STALE_BALANCE} - i.amount`, 1),
    'AND wallets.balance >= i.amount',
    `AND ${STALE_BALANCE} >= i.amount`,
    1,
  );

/** WRONG ON PURPOSE: wallet payments that debit a stale balance: concurrent payments spend it twice. */
export const lostUpdateWalletPayments = broken(walletPayments, 'wallet payments lost update', staleDebit);

/** WRONG ON PURPOSE: transfers that debit a stale source balance. */
export const lostUpdateTransfers = broken(transfers, 'transfers lost update', staleDebit);

/** What the payment has refunded, and the merchant's debited funds, as the statement's snapshot has them. */
const STALE_REFUNDED = (alias: string) => `(SELECT s.amount_refunded FROM charges s WHERE s.id = ${alias}.id)`;
const STALE_DEBITED = (alias: string) =>
  `(SELECT s.debited FROM merchant_balances s WHERE s.merchant_id = ${alias}.merchant_id AND s.currency = ${alias}.currency AND s.shard = 0)`;

/**
 * WRONG ON PURPOSE: refunds and payouts deciding on stale numbers: the refund cap and the funds
 * check read the snapshot, and the updates write "what was read plus the amount". Concurrent
 * refunds of one payment exceed it; concurrent payouts exceed the funds.
 */
export const lostUpdateOutflows = broken(outflows, 'outflows lost update', (text) => {
  let edited = rewrite(text, 'p.amount - p.amount_refunded < i.amount', `p.amount - ${STALE_REFUNDED('p')} < i.amount`, 1);
  edited = rewrite(edited, 'SET amount_refunded = charges.amount_refunded +', `SET amount_refunded = ${STALE_REFUNDED('charges')} +`, 1);
  edited = rewrite(
    edited,
    'SELECT b.merchant_id, b.currency, b.debited,',
    `SELECT b.merchant_id, b.currency, ${STALE_DEBITED('b')} AS debited,`,
    1,
  );
  return rewrite(edited, 'SET debited = merchant_balances.debited +', `SET debited = ${STALE_DEBITED('merchant_balances')} +`, 1);
});

/**
 * WRONG ON PURPOSE: merged outflows each checked against the whole funds, not against their sum
 * (the statement never aborts to run them one by one): together they can take more than there is.
 */
export const unsplitOutflows = broken(outflows, 'outflows unsplit', (text) =>
  rewrite(
    text,
    "WHEN r.n > 1 AND r.total > c.available THEN purse_abort('merged outflows are more than the funds: each runs alone')",
    '',
    1,
  ),
);
