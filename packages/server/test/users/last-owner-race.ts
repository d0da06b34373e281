// The last-owner rule under a race: `merchants` merchants with two owners each, x and y, and on
// every one at the same instant (all merchants at once, so that the requests overlap) x demotes y
// to admin while y demotes x (even merchants) or removes x (odd ones). Shared by
// test/users/sessions.test.ts, where exactly one of the two acts succeeds on each merchant and one
// active owner remains, and by the negative control (test/negative-control.ts), where the rule
// decided by a check-then-act lets both through and leaves merchants without an owner.
import { createTestMerchant, type TestApp } from '../helpers/app.ts';
import { activeUser, type Browser, call } from './support.ts';

export interface LastOwnerRound {
  merchantId: string;
  /** What y does to x while x demotes y. */
  act: 'demote' | 'remove';
  x: Browser;
  y: Browser;
  /** The answers' status codes: x's demotion of y, then y's act on x. */
  statuses: [number, number];
  bodies: [string, string];
  /** The merchant's active owners afterwards. */
  activeOwners: number;
}

export async function runLastOwnerRace(app: TestApp, merchants: number): Promise<LastOwnerRound[]> {
  const pairs: Pick<LastOwnerRound, 'merchantId' | 'act' | 'x' | 'y'>[] = [];
  for (let i = 0; i < merchants; i++) {
    const { merchantId } = await createTestMerchant(app, `Two owners ${i}`);
    const x = await activeUser(app, merchantId, 'owner');
    const y = await activeUser(app, merchantId, 'owner');
    pairs.push({ merchantId, act: i % 2 === 0 ? 'demote' : 'remove', x, y });
  }
  const answers = await Promise.all(
    pairs.map(({ act, x, y }) =>
      Promise.all([
        call(app, x, 'PATCH', `/dashboard/api/users/${y.userId}`, { role: 'admin' }),
        act === 'demote'
          ? call(app, y, 'PATCH', `/dashboard/api/users/${x.userId}`, { role: 'admin' })
          : call(app, y, 'DELETE', `/dashboard/api/users/${x.userId}`),
      ]),
    ),
  );
  const owners = await app.deps.db.db
    .selectFrom('users')
    .select((eb) => ['merchant_id', eb.fn.countAll().as('n')])
    .where(
      'merchant_id',
      'in',
      pairs.map((p) => p.merchantId),
    )
    .where('role', '=', 'owner')
    .where('status', '=', 'active')
    .groupBy('merchant_id')
    .execute();
  return pairs.map((pair, i) => {
    const [first, second] = answers[i] ?? [];
    return {
      ...pair,
      statuses: [first?.statusCode ?? 0, second?.statusCode ?? 0],
      bodies: [first?.body ?? '', second?.body ?? ''],
      activeOwners: Number(owners.find((row) => row.merchant_id === pair.merchantId)?.n ?? 0),
    };
  });
}
