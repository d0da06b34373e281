import { sql } from 'kysely';
import type { Db } from '../db/db.ts';
import { newId } from '../shared/ids.ts';
import { type Result, err, ok } from '../shared/result.ts';
import { walletIdOf } from './accounts.ts';
import { type LedgerLine, type LedgerPosting, LedgerInvariantError, type PostingError } from './types.ts';

/** Every posting must sum to zero per currency; anything else stops the request loudly. */
export function assertBalanced(lines: LedgerLine[]): void {
  if (lines.length < 2) throw new LedgerInvariantError('a ledger transaction needs at least two lines');
  const sums = new Map<string, bigint>();
  for (const line of lines) {
    if (line.amount === 0n) throw new LedgerInvariantError(`zero amount on ${line.account}`);
    sums.set(line.currency, (sums.get(line.currency) ?? 0n) + line.amount);
  }
  for (const [currency, sum] of sums) {
    if (sum !== 0n) throw new LedgerInvariantError(`ledger transaction does not balance in ${currency}: ${sum}`);
  }
}

/**
 * Moves a wallet's cached balance by `amount` with one conditional UPDATE: a debit only
 * when the wallet is active and covers it (the row lock serialises concurrent debits, and
 * CHECK (balance >= 0) is the backstop). Returns the new balance, or why it was refused.
 */
async function moveWalletBalance(trx: Db, walletId: string, amount: bigint, at: Date, options: LedgerOptions): Promise<Result<bigint, PostingError>> {
  const debit = amount < 0n;
  if (debit && options.negativeControlRmwDebit) return readModifyWriteDebit(trx, walletId, amount, at);
  const row = await trx
    .updateTable('wallets')
    .set({ balance: sql`balance + ${amount.toString()}::bigint`, updated_at: at })
    .where('id', '=', walletId)
    .$if(debit, (q) => q.where('status', '=', 'active').where('balance', '>=', (-amount).toString()))
    .returning('balance')
    .executeTakeFirst();
  if (row) return ok(BigInt(row.balance));
  const wallet = await trx.selectFrom('wallets').select('status').where('id', '=', walletId).executeTakeFirst();
  if (!wallet) throw new LedgerInvariantError(`posting to unknown wallet ${walletId}`);
  return err(wallet.status === 'active' ? 'insufficient_funds' : 'wallet_inactive');
}

export interface LedgerOptions {
  /** See Config.negativeControlRmwDebit: the deliberately broken debit of the negative control. */
  negativeControlRmwDebit?: boolean;
}

/** WRONG ON PURPOSE (negative control): reads, checks in JavaScript, writes back an absolute value. */
async function readModifyWriteDebit(trx: Db, walletId: string, amount: bigint, at: Date): Promise<Result<bigint, PostingError>> {
  const wallet = await trx.selectFrom('wallets').select(['balance', 'status']).where('id', '=', walletId).executeTakeFirstOrThrow();
  if (wallet.status !== 'active') return err('wallet_inactive');
  const next = BigInt(wallet.balance) + amount;
  if (next < 0n) return err('insufficient_funds');
  await trx.updateTable('wallets').set({ balance: next, updated_at: at }).where('id', '=', walletId).execute();
  return ok(next);
}

/**
 * The only writer of balances. Call inside the transaction that changes the source's state.
 * At most one wallet debit per posting, and it is applied first, so a refusal leaves nothing
 * written. Returns the ledger transaction id.
 */
export async function postLedgerTransaction(trx: Db, posting: LedgerPosting, options: LedgerOptions = {}): Promise<Result<string, PostingError>> {
  assertBalanced(posting.lines);
  const walletLines = posting.lines.filter((l) => walletIdOf(l.account) !== null);
  if (walletLines.filter((l) => l.amount < 0n).length > 1) throw new LedgerInvariantError('at most one wallet debit per posting');
  walletLines.sort((a, b) => (a.amount < b.amount ? -1 : 1));

  const balances = new Map<string, bigint>();
  for (const line of walletLines) {
    const moved = await moveWalletBalance(trx, walletIdOf(line.account)!, line.amount, posting.createdAt, options);
    if (!moved.ok) {
      if (balances.size > 0) throw new LedgerInvariantError('wallet refusal after another wallet moved');
      return moved;
    }
    balances.set(line.account, moved.value);
  }

  const transactionId = newId('ledgerTransaction');
  await trx
    .insertInto('ledger_transactions')
    .values({
      id: transactionId,
      merchant_id: posting.merchantId,
      source_type: posting.sourceType,
      source_id: posting.sourceId,
      created_at: posting.createdAt,
    })
    .execute();
  await trx
    .insertInto('ledger_entries')
    .values(
      posting.lines.map((line) => ({
        id: newId('walletTransaction'),
        transaction_id: transactionId,
        account: line.account,
        currency: line.currency,
        amount: line.amount,
        balance_after: balances.get(line.account) ?? null,
        source_type: posting.sourceType,
        source_id: posting.sourceId,
        created_at: posting.createdAt,
      })),
    )
    .execute();
  return ok(transactionId);
}
