import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import type { Connector, Route } from './connector.ts';
import { createConnectorRegistry, routeOf } from './registry.ts';

/** A connector that only declares its name and routes: routing never calls it. */
function fake(name: string, serves: Route[]): Connector {
  const unused = () => Promise.reject(new Error('not called'));
  return {
    name,
    serves,
    initiate: unused,
    sendOut: unused,
    getStatus: unused,
    callbacks: { body: Type.Object({}), headers: {}, description: name, verify: () => false, parse: () => null },
  };
}

const sandbox = fake('sandbox', [
  { means: 'mobile_money', network: null, livemode: false },
  { means: 'card', network: null, livemode: false },
]);
const mtn = fake('mtn', [{ means: 'mobile_money', network: 'mtn', livemode: true }]);
const mpesa = fake('mpesa', [{ means: 'mobile_money', network: 'mpesa', livemode: true }]);

test('routing table: (means, network, livemode) → the connector serving it, else the means default, else none', () => {
  const registry = createConnectorRegistry([sandbox, mtn, mpesa]);
  const table: [Route, string | null][] = [
    [{ means: 'mobile_money', network: null, livemode: false }, 'sandbox'],
    [{ means: 'mobile_money', network: 'mtn', livemode: false }, 'sandbox'],
    [{ means: 'card', network: null, livemode: false }, 'sandbox'],
    [{ means: 'mobile_money', network: 'mtn', livemode: true }, 'mtn'],
    [{ means: 'mobile_money', network: 'mpesa', livemode: true }, 'mpesa'],
    [{ means: 'mobile_money', network: 'airtel', livemode: true }, null],
    [{ means: 'mobile_money', network: null, livemode: true }, null],
    [{ means: 'card', network: null, livemode: true }, null],
  ];
  for (const [route, expected] of table) assert.equal(registry.route(route)?.name ?? null, expected, JSON.stringify(route));
  assert.equal(registry.get('mpesa'), mpesa);
  assert.equal(registry.get('purse'), null);
  assert.deepEqual(
    registry.connectors.map((c) => c.name),
    ['sandbox', 'mtn', 'mpesa'],
  );
});

test("a charge's route: its means, and the operator the merchant named for mobile money", () => {
  const table: [Parameters<typeof routeOf>[0], boolean, Route][] = [
    [
      { type: 'mobile_money', phoneNumber: '+256770000000', provider: 'MTN' },
      true,
      { means: 'mobile_money', network: 'mtn', livemode: true },
    ],
    [
      { type: 'mobile_money', phoneNumber: '+254712345000', provider: null },
      false,
      { means: 'mobile_money', network: null, livemode: false },
    ],
    [
      { type: 'card', number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123' },
      true,
      { means: 'card', network: null, livemode: true },
    ],
  ];
  for (const [method, livemode, expected] of table) assert.deepEqual(routeOf(method, livemode), expected);
});

test("an unnamed operator: the network of the number's country calling code, the longest code first; a named one wins", () => {
  const routes = [
    ['254', 'mpesa'],
    ['256', 'mtn'],
    ['2567', 'airtel'],
  ] as const;
  const mm = (phoneNumber: string, provider: string | null = null) => ({ type: 'mobile_money' as const, phoneNumber, provider });
  const table: [ReturnType<typeof mm>, string | null][] = [
    [mm('+256650000000'), 'mtn'],
    [mm('+256770000000'), 'airtel'],
    [mm('254712345000'), 'mpesa'],
    [mm('+233240000000'), null],
    [mm('+256650000000', 'Airtel'), 'airtel'],
  ];
  for (const [method, network] of table) {
    assert.deepEqual(routeOf(method, true, routes), { means: 'mobile_money', network, livemode: true }, method.phoneNumber);
  }
});

test('refused at start-up: a route or a name claimed twice, a reserved name', () => {
  const other = fake('other', [{ means: 'card', network: null, livemode: false }]);
  assert.throws(() => createConnectorRegistry([sandbox, other]), /route test\/card\/\* is served by both sandbox and other/);
  assert.throws(() => createConnectorRegistry([sandbox, fake('sandbox', [])]), /name taken: sandbox/);
  assert.throws(() => createConnectorRegistry([fake('purse', [])]), /name taken: purse/);
  assert.throws(() => createConnectorRegistry([fake('unconfigured', [])]), /name taken/);
});
