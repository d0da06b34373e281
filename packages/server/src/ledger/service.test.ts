import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { postingCtes } from './posting.ts';
import { assertBalanced } from './service.ts';
import { LedgerInvariantError } from './types.ts';

test('assertBalanced accepts postings that sum to zero per currency', () => {
  assertBalanced([
    { account: 'a', currency: 'KES', amount: -5n },
    { account: 'b', currency: 'KES', amount: 5n },
  ]);
  assertBalanced([
    { account: 'a', currency: 'KES', amount: -5n },
    { account: 'b', currency: 'KES', amount: 5n },
    { account: 'c', currency: 'UGX', amount: 7n },
    { account: 'd', currency: 'UGX', amount: -7n },
  ]);
});

test('assertBalanced refuses unbalanced, single-line and zero-amount postings', () => {
  const table = [
    [
      { account: 'a', currency: 'KES', amount: -5n },
      { account: 'b', currency: 'KES', amount: 4n },
    ],
    [
      { account: 'a', currency: 'KES', amount: -5n },
      { account: 'b', currency: 'UGX', amount: 5n },
    ],
    [
      { account: 'a', currency: 'KES', amount: 0n },
      { account: 'b', currency: 'KES', amount: 0n },
    ],
    [{ account: 'a', currency: 'KES', amount: 5n }],
  ];
  for (const lines of table) assert.throws(() => assertBalanced(lines), LedgerInvariantError);
});

test('postingCtes refuses a wallet line without the seq of its wallet UPDATE, and takes one with it', () => {
  const line = (account: string, amount: bigint, seq?: ReturnType<typeof sql>) => ({
    id: `id-${account}`,
    account,
    currency: sql`'KES'`,
    amount: sql`${amount.toString()}::bigint`,
    balanceAfter: sql`NULL`,
    ...(seq ? { seq } : {}),
  });
  const posting = (lines: ReturnType<typeof line>[]) => ({
    from: sql`debit d`,
    transactionId: 'ltx',
    merchantId: sql`'m'`,
    sourceType: sql`'payment'`,
    sourceId: sql`'pay'`,
    at: sql`now()`,
    lines,
  });
  const check = [
    { account: 'wallet:w', currency: 'KES', amount: -5n },
    { account: 'merchant:m:KES', currency: 'KES', amount: 5n },
  ];
  assert.throws(() => postingCtes(posting([line('wallet:w', -5n), line('merchant:m:KES', 5n)]), check), LedgerInvariantError);
  postingCtes(posting([line('wallet:w', -5n, sql`d.seq`), line('merchant:m:KES', 5n)]), check);
});
