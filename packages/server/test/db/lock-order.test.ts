// The rows a batch locks first (src/db/lock-order.ts): each set once, in key order, whatever the
// arrival order of the batch's items; nothing to lock, no statement.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isRetryableConflict, lockParameters } from '../../src/db/lock-order.ts';

test('lock parameters: distinct rows, sorted by key, whatever the arrival order', () => {
  const params = lockParameters([
    { wallets: ['wal_b'], shards: [['mer_2', 'KES', 3]] },
    { charges: ['pay_z', 'pay_a'], wallets: ['wal_a', 'wal_b'], shards: [['mer_1', 'UGX', 0]] },
    {
      shards: [
        ['mer_1', 'KES', 2],
        ['mer_2', 'KES', 3],
      ],
    },
  ]);
  assert.deepEqual(params, [
    ['pay_a', 'pay_z'],
    ['wal_a', 'wal_b'],
    ['mer_1', 'mer_1', 'mer_2'],
    ['KES', 'UGX', 'KES'],
    [2, 0, 3],
  ]);
  assert.equal(lockParameters([{}, { charges: [] }]), undefined);
});

test('deadlocks and serialization failures run again; other errors do not', () => {
  assert.equal(isRetryableConflict(Object.assign(new Error('deadlock'), { code: '40P01' })), true);
  assert.equal(isRetryableConflict(Object.assign(new Error('serialization'), { code: '40001' })), true);
  assert.equal(isRetryableConflict(Object.assign(new Error('unique'), { code: '23505' })), false);
  assert.equal(isRetryableConflict(new Error('no code')), false);
});
