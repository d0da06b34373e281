// How the group commit turns a batch into statements (planUnits in src/db/group-commit.ts):
// merged items share a statement unless one of them has to run after something that came first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { deferredItems, type MergedWrite, type Pending, planUnits } from '../../src/db/group-commit.ts';

type Item = { name: string; key: string; touches?: string[] };
const write = (label: string): MergedWrite<Item, { id: string }> => ({
  name: label,
  statement: sql`SELECT 1`,
  columns: () => [],
  key: (item) => item.key,
  id: (item) => item.name,
});
const payments = write('payments');
const credits = write('credits');
/** Keyed by its own object (a refund's payment), touching a wallet it credits (summed with others). */
const refunds: MergedWrite<Item, { id: string }> = { ...write('refunds'), touches: (item) => item.touches ?? [] };

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

test('touched keys: shared within the write, ordered across writes', () => {
  // Two refunds crediting wallet W share a statement (their credits are summed): only their own keys must differ.
  assert.deepEqual(
    shape([
      { ...merged(refunds, 'refund-1', 'P1'), item: { name: 'refund-1', key: 'P1', touches: ['W'] } } as Pending,
      { ...merged(refunds, 'refund-2', 'P2'), item: { name: 'refund-2', key: 'P2', touches: ['W'] } } as Pending,
    ]),
    [['refund-1', 'refund-2']],
  );
  const refund = (name: string, key: string, wallet: string) =>
    ({ ...merged(refunds, name, key), item: { name, key, touches: [wallet] } }) as Pending;
  // A payment from W after a refund to W waits for a statement after the refund's; a refund to W
  // after that payment may not join the first refunds statement, which runs before the payment.
  assert.deepEqual(
    shape([refund('refund-1', 'P1', 'W'), merged(payments, 'pay-W', 'W'), refund('refund-2', 'P2', 'W'), refund('refund-3', 'P3', 'V')]),
    [['refund-1'], ['pay-W'], ['refund-2', 'refund-3']],
  );
  // A refund to V (touched only) does not hold back a payment from W.
  assert.deepEqual(shape([merged(payments, 'pay-W', 'W'), refund('refund-1', 'P1', 'V'), merged(payments, 'pay-X', 'X')]), [
    ['pay-W', 'pay-X'],
    ['refund-1'],
  ]);
});

test('several keys: an item shares a statement only with items that have none of them', () => {
  // Transfers change both their wallets: A→B and C→D share one; B→C has a key in it (B and C).
  const transfers: MergedWrite<Item & { keys?: string[] }, { id: string }> = {
    ...write('transfers'),
    key: (item) => (item as { keys: string[] }).keys,
  };
  const transfer = (name: string, from: string, to: string) =>
    ({ merged: transfers, item: { name, key: from, keys: [from, to] }, resolve: () => {}, reject: () => {} }) as unknown as Pending;
  assert.deepEqual(shape([transfer('A-B', 'A', 'B'), transfer('C-D', 'C', 'D'), transfer('B-C', 'B', 'C'), transfer('E-F', 'E', 'F')]), [
    ['A-B', 'C-D'],
    ['B-C', 'E-F'],
  ]);
  // A refund touching wallet A may not join a statement where A is a transfer's own key... of its
  // own write: an own key and a touched key of one write never meet in one statement.
  const both: MergedWrite<Item, { id: string }> = { ...write('both'), touches: (item) => item.touches ?? [] };
  const credit = {
    merged: both,
    item: { name: 'credit-A', key: 'P1', touches: ['A'] },
    resolve: () => {},
    reject: () => {},
  } as unknown as Pending;
  const debit = { merged: both, item: { name: 'debit-A', key: 'A' }, resolve: () => {}, reject: () => {} } as unknown as Pending;
  assert.deepEqual(shape([debit, credit]), [['debit-A'], ['credit-A']]);
  assert.deepEqual(shape([credit, debit]), [['credit-A'], ['debit-A']]);
});

test('a write whose statements commit alone: the batch runs its first statement, the rest waits', () => {
  const alone: MergedWrite<Item, { id: string }> = { ...write('transfers'), alone: true };
  const name = (p: Pending) => (p as unknown as { item: Item }).item.name;
  const batch = [
    merged(alone, 't1', 'A'),
    merged(payments, 'p1', 'W'),
    merged(alone, 't2', 'B'),
    merged(alone, 't3', 'A'),
    merged(alone, 't4', 'C'),
  ];
  // Statements: [t1, t2] (transfers), [p1] (payments), [t3, t4] (A again, then C joins it): only the first runs now.
  assert.deepEqual(deferredItems(batch).map(name), ['p1', 't3', 't4']);
  // Without such a write, a batch of several statements runs whole (one transaction).
  assert.deepEqual(deferredItems([merged(payments, 'a1', 'A'), merged(payments, 'a2', 'A')]), []);
  // One statement: nothing waits.
  assert.deepEqual(deferredItems([merged(alone, 't1', 'A'), merged(alone, 't2', 'B')]), []);
});
