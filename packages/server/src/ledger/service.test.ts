import assert from 'node:assert/strict';
import { test } from 'node:test';
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
