// How the group commit turns a batch into statements (planUnits in src/db/group-commit.ts):
// merged items share a statement unless one of them has to run after something that came first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { type MergedWrite, type Pending, planUnits } from '../../src/db/group-commit.ts';

type Item = { name: string; key: string };
const write = (label: string): MergedWrite<Item, { id: string }> => ({
  name: label,
  statement: sql`SELECT 1`,
  columns: () => [],
  key: (item) => item.key,
  id: (item) => item.name,
});
const payments = write('payments');
const credits = write('credits');

const merged = (w: MergedWrite<Item, { id: string }>, name: string, key: string) =>
  ({ merged: w, item: { name, key }, resolve: () => {}, reject: () => {} }) as unknown as Pending;
const single = (name: string) => ({ query: { sql: name }, resolve: () => {}, reject: () => {} }) as unknown as Pending;

/** Each statement as the names of its items. */
const shape = (batch: Pending[]) =>
  planUnits(batch).map((unit) =>
    'single' in unit
      ? [(unit.single.query as unknown as { sql: string }).sql]
      : unit.items.map((p) => (p as unknown as { item: Item }).item.name),
  );

test('items of one write with different keys share one statement', () => {
  assert.deepEqual(shape([merged(payments, 'a1', 'A'), merged(payments, 'b1', 'B'), merged(payments, 'c1', 'C')]), [['a1', 'b1', 'c1']]);
});

test('a second item of one key opens the next statement, which the items after it join', () => {
  assert.deepEqual(
    shape([merged(payments, 'a1', 'A'), merged(payments, 'a2', 'A'), merged(payments, 'b1', 'B'), merged(payments, 'a3', 'A')]),
    [['a1'], ['a2', 'b1'], ['a3']],
  );
});

test("an item never runs before another write's item of its key that came first", () => {
  // The credit of wallet B came before the payment from B: the payment may not join the first
  // payments statement, which runs before the credit.
  assert.deepEqual(
    shape([
      merged(payments, 'pay-A', 'A'),
      merged(credits, 'credit-B', 'B'),
      merged(payments, 'pay-B', 'B'),
      merged(payments, 'pay-C', 'C'),
    ]),
    [['pay-A'], ['credit-B'], ['pay-B', 'pay-C']],
  );
  // A key only seen in an earlier statement does not hold anyone back.
  assert.deepEqual(shape([merged(credits, 'credit-B', 'B'), merged(payments, 'pay-A', 'A'), merged(payments, 'pay-B', 'B')]), [
    ['credit-B'],
    ['pay-A', 'pay-B'],
  ]);
});

test('a statement of its own closes every open merged statement', () => {
  assert.deepEqual(shape([merged(payments, 'a1', 'A'), single('transfer'), merged(payments, 'b1', 'B')]), [['a1'], ['transfer'], ['b1']]);
});
