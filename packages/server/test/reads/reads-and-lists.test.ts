// Reads and lists (docs/api.md §3, §4, §5, §6, §9): unknown,
// foreign and malformed ids, list parameters, cursors, filters, unknown routes and methods.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { newId } from '../../src/shared/ids.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { assertApiError, errorWithoutRequestId, expect400 } from '../helpers/bad-input.ts';
import {
  assertLedgerHealthy,
  cardMethod,
  fundedWallet,
  get,
  mobileMethod,
  paymentBody,
  post,
  uniqueRef,
  walletMethod,
} from '../helpers/factories.ts';
import { atFileEnd, usePrivatePostgres } from '../webhooks/support.ts';

interface Listed {
  id: string;
  reference: string;
  status: string;
  created_at: string;
  payment_method?: { type: string };
  source?: { type: string };
}

let app: TestApp;
let m: TestMerchant;
let other: TestMerchant;
/** Ids of objects of each merchant, by kind. */
const mine = { payments: [] as string[], topups: [] as string[], wallets: [] as string[] };
const theirs = { payments: [] as string[], topups: [] as string[], wallets: [] as string[] };
let myWallet: string;
let theirWallet: string;

const notFound = { status: 404, code: 'resource_not_found', param: null };
const ids = (body: { data: { id: string }[] }) => body.data.map((o) => o.id);

async function created(res: { statusCode: number; body: string; json(): any }): Promise<string> {
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id as string;
}

// A database of its own on PostgreSQL: another file's settlement worker on the run's shared
// database would settle the mobile-money payment this file needs pending (CI saw it once).
const ready = usePrivatePostgres();

before(async () => {
  await ready();
  // No worker: a mobile-money payment stays pending, so the status filter has all three states.
  app = await buildTestApp(null, { env: { PURSE_WORKER: 'false' } });
  m = await createTestMerchant(app, 'Reader');
  other = await createTestMerchant(app, 'Other reader');
  for (const [merchant, bag] of [
    [m, mine],
    [other, theirs],
  ] as const) {
    const wallet = await fundedWallet(app, merchant, '1000.00');
    bag.wallets.push(wallet);
    bag.topups.push(...ids((await get(app, merchant, '/v1/topups')).json())); // the funding top-up
    bag.payments.push(await created(await post(app, merchant, '/v1/payments', paymentBody())));
    bag.payments.push(
      await created(await post(app, merchant, '/v1/payments', paymentBody({ payment_method: cardMethod({ number: '4000000000000002' }) }))),
    );
    bag.payments.push(
      await created(await post(app, merchant, '/v1/payments', paymentBody({ payment_method: mobileMethod('+254712345005') }))),
    );
    bag.payments.push(
      await created(await post(app, merchant, '/v1/payments', paymentBody({ amount: '10.00', payment_method: walletMethod(wallet) }))),
    );
    bag.topups.push(
      await created(
        await post(app, merchant, '/v1/topups', {
          reference: uniqueRef('t'),
          amount: '5.00',
          currency: 'KES',
          wallet_id: wallet,
          source: mobileMethod('+254712345005'),
        }),
      ),
    );
  }
  myWallet = mine.wallets[0]!;
  theirWallet = theirs.wallets[0]!;
});

atFileEnd(async () => {
  await app.close();
  await app.deps.close();
});

describe('one object: unknown and foreign ids', () => {
  const cases: [string, () => string, () => string][] = [
    ['payment', () => `/v1/payments/${newId('payment')}`, () => `/v1/payments/${theirs.payments[0]}`],
    ['top-up', () => `/v1/topups/${newId('topup')}`, () => `/v1/topups/${theirs.topups[0]}`],
    ['wallet', () => `/v1/wallets/${newId('wallet')}`, () => `/v1/wallets/${theirWallet}`],
    ['wallet transactions', () => `/v1/wallets/${newId('wallet')}/transactions`, () => `/v1/wallets/${theirWallet}/transactions`],
  ];
  for (const [kind, unknownUrl, foreignUrl] of cases) {
    test(`${kind}: unknown id and another merchant's id → identical 404 resource_not_found bodies`, async () => {
      const unknownRes = await get(app, m, unknownUrl());
      const foreignRes = await get(app, m, foreignUrl());
      assertApiError(unknownRes, notFound, 'unknown');
      assertApiError(foreignRes, notFound, 'foreign');
      assert.deepEqual(errorWithoutRequestId(foreignRes), errorWithoutRequestId(unknownRes));
      assert.equal(foreignRes.body.length, unknownRes.body.length);
      // The owner still reads it.
      assert.equal((await get(app, other, foreignUrl())).statusCode, 200);
    });
  }

  test('each of my objects reads back as created', async () => {
    for (const id of mine.payments) assert.equal((await get(app, m, `/v1/payments/${id}`)).json().id, id);
    for (const id of mine.topups) assert.equal((await get(app, m, `/v1/topups/${id}`)).json().object, 'topup');
    const body = paymentBody({ metadata: { a: 'b' } });
    const res = await post(app, m, '/v1/payments', body);
    mine.payments.push(res.json().id);
    assert.deepEqual((await get(app, m, `/v1/payments/${res.json().id}`)).json(), res.json());
  });
});

describe('one object: malformed ids → 404, never 500', () => {
  const malformed = [
    '..%2F',
    '..%2F..%2Fadmin',
    'x'.repeat(500),
    '%00',
    `pay_01jd6x8v1ffq8v2k3m4n5p6q7r%00`,
    '%22',
    '%27',
    "'",
    '%27%20OR%201%3D1--',
    '%22%3B%20DROP%20TABLE%20charges%3B--',
    '%C3%A9',
    '%E2%80%AE',
    '%F0%9F%92%B8',
    'null',
    '0',
    '-1',
    '%7B%7D',
    '%5B%5D',
    `pay_${'z'.repeat(26)}`,
    'pay_',
    '_',
  ];
  const wrongKind: [string, () => string][] = [
    ['/v1/payments', () => myWallet],
    ['/v1/payments', () => mine.topups[0]!],
    ['/v1/topups', () => mine.payments[0]!],
    ['/v1/wallets', () => mine.payments[0]!],
    ['/v1/payments', () => mine.payments[0]!.toUpperCase()],
    ['/v1/payments', () => `${mine.payments[0]!}%20`],
    ['/v1/payments', () => `%20${mine.payments[0]!}`],
  ];
  for (const base of ['/v1/payments', '/v1/topups', '/v1/wallets']) {
    test(`${base}/{malformed}: ${malformed.length} ids → 404 resource_not_found`, async () => {
      for (const id of malformed) {
        assertApiError(await get(app, m, `${base}/${id}`), notFound, `${base}/${id.slice(0, 40)}`);
        if (base === '/v1/wallets')
          assertApiError(await get(app, m, `${base}/${id}/transactions`), notFound, `${id.slice(0, 40)}/transactions`);
      }
    });
  }

  test('percent-encoded dot segments are resolved before routing: /v1/payments/%2E%2E is /v1/ → 404 route_not_found', async () => {
    assertApiError(await get(app, m, '/v1/payments/%2E%2E'), { status: 404, code: 'route_not_found', param: null });
  });

  test('an id of the wrong kind, in the wrong case or with spaces → 404 resource_not_found', async () => {
    for (const [base, id] of wrongKind) assertApiError(await get(app, m, `${base}/${id()}`), notFound, `${base}/${id()}`);
  });

  test('an id longer than the router allows and a broken percent-encoding are never 5xx', async () => {
    for (const url of [
      `/v1/payments/${'x'.repeat(501)}`,
      `/v1/payments/${'x'.repeat(5000)}`,
      '/v1/payments/%zz',
      '/v1/payments/%',
      '/v1/wallets/%E0%A4%A/transactions',
    ]) {
      const res = await get(app, m, url);
      assert.ok(res.statusCode < 500, `${url.slice(0, 40)}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      assert.ok(res.statusCode >= 400);
    }
  });

  test('an id longer than the router allows and a broken percent-encoding → 404 in the error envelope', async () => {
    for (const url of [`/v1/payments/${'x'.repeat(501)}`, '/v1/payments/%zz'])
      assertApiError(await get(app, m, url), notFound, url.slice(0, 40));
  });
});

const LISTS = ['/v1/payments', '/v1/topups', '/v1/wallets', 'transactions'] as const;
const listUrl = (list: (typeof LISTS)[number]) => (list === 'transactions' ? `/v1/wallets/${myWallet}/transactions` : list);

describe('list parameters', () => {
  const badLimits = ['0', '101', 'abc', '-1', '1.5', '', '%2010', '10%20', '%EF%BC%91%EF%BC%90', '1e1', '0x10', '1000', '%00'];
  for (const list of LISTS) {
    test(`${list}: limit ${badLimits.map((l) => JSON.stringify(l)).join(', ')} → 400 parameter_invalid (limit)`, async () => {
      for (const limit of badLimits)
        assertApiError(await get(app, m, `${listUrl(list)}?limit=${limit}`), expect400.invalid('limit'), `limit=${limit}`);
      assertApiError(await get(app, m, `${listUrl(list)}?limit=1&limit=2`), expect400.invalid('limit'), 'limit twice');
    });

    test(`${list}: limit 1 and 100 are accepted; the default is 10`, async () => {
      const one = await get(app, m, `${listUrl(list)}?limit=1`);
      assert.equal(one.statusCode, 200, one.body);
      assert.equal(one.json().data.length, 1);
      assert.deepEqual(Object.keys(one.json()), ['object', 'data', 'has_more']);
      assert.equal(one.json().object, 'list');
      assert.equal((await get(app, m, `${listUrl(list)}?limit=100`)).statusCode, 200);
    });

    test(`${list}: both cursors → 400 parameter_invalid; a cursor of another kind or malformed → 400`, async () => {
      const kind =
        list === '/v1/payments' ? 'payment' : list === '/v1/topups' ? 'topup' : list === '/v1/wallets' ? 'wallet' : 'walletTransaction';
      assertApiError(
        await get(app, m, `${listUrl(list)}?starting_after=${newId(kind)}&ending_before=${newId(kind)}`),
        expect400.invalid('ending_before'),
        'both cursors',
      );
      const wrong = kind === 'payment' ? newId('topup') : newId('payment');
      for (const name of ['starting_after', 'ending_before']) {
        for (const value of [wrong, 'abc', '%00', '..%2F', '%27']) {
          assertApiError(await get(app, m, `${listUrl(list)}?${name}=${value}`), expect400.invalid(name), `${name}=${value}`);
        }
      }
    });

    test(`${list}: an unknown query parameter → 400 parameter_unknown`, async () => {
      for (const name of ['foo', 'merchant_id', 'limit[]', '__proto__', 'offset']) {
        assertApiError(await get(app, m, `${listUrl(list)}?${name}=1`), expect400.unknown(name), name);
      }
    });
  }

  test("a cursor from another merchant positions the page but never returns that merchant's data", async () => {
    const cases: [string, string[], string[]][] = [
      ['/v1/payments', mine.payments, theirs.payments],
      ['/v1/topups', mine.topups, theirs.topups],
      ['/v1/wallets', mine.wallets, theirs.wallets],
    ];
    for (const [url, myIds, theirIds] of cases) {
      for (const cursor of ['starting_after', 'ending_before']) {
        for (const foreignId of theirIds) {
          const res = await get(app, m, `${url}?limit=100&${cursor}=${foreignId}`);
          assert.equal(res.statusCode, 200, res.body);
          for (const id of ids(res.json())) assert.ok(myIds.includes(id) && !theirIds.includes(id), `${url}: ${id} is not mine`);
          assert.ok(!res.body.includes(foreignId), 'the foreign id is not echoed');
        }
      }
      const all = ids((await get(app, m, `${url}?limit=100`)).json());
      for (const id of theirIds) assert.ok(!all.includes(id), `${url} lists only my objects`);
    }
  });
});

describe('pagination', () => {
  test('25 payments, limit 10: forward and backward walks without gaps or duplicates, has_more right', async () => {
    const merchant = await createTestMerchant(app, 'Pager');
    const createdIds: string[] = [];
    for (let i = 0; i < 25; i++)
      createdIds.push(await created(await post(app, merchant, '/v1/payments', paymentBody({ amount: `${i + 1}.00` }))));
    const expected = [...createdIds].sort().reverse();
    const newestFirst = (await get(app, merchant, '/v1/payments?limit=100')).json().data as Listed[];
    assert.deepEqual(
      newestFirst.map((p) => p.id),
      expected,
      'newest first, by id',
    );
    for (let i = 1; i < newestFirst.length; i++)
      assert.ok(newestFirst[i - 1]!.created_at >= newestFirst[i]!.created_at, 'created_at never increases');

    const page = async (query: string) => {
      const res = await get(app, merchant, `/v1/payments?limit=10${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { data: Listed[]; has_more: boolean };
    };

    // Forward: starting_after the last id of each page.
    const forward: string[][] = [];
    const forwardMore: boolean[] = [];
    let cursor = '';
    for (;;) {
      const p = await page(cursor ? `&starting_after=${cursor}` : '');
      forward.push(ids(p));
      forwardMore.push(p.has_more);
      if (!p.has_more) break;
      cursor = p.data[p.data.length - 1]!.id;
    }
    assert.deepEqual(
      forward.map((p) => p.length),
      [10, 10, 5],
    );
    assert.deepEqual(forwardMore, [true, true, false]);
    assert.deepEqual(forward.flat(), expected);

    // Backward: ending_before the first id of each page, from the oldest object.
    const backward: string[][] = [];
    const backwardMore: boolean[] = [];
    cursor = expected[expected.length - 1]!;
    for (;;) {
      const p = await page(`&ending_before=${cursor}`);
      backward.unshift(ids(p));
      backwardMore.push(p.has_more);
      if (!p.has_more) break;
      cursor = p.data[0]!.id;
    }
    assert.deepEqual(
      backward.map((p) => p.length),
      [4, 10, 10],
    );
    assert.deepEqual(backwardMore, [true, true, false]);
    assert.deepEqual(backward.flat(), expected.slice(0, 24), 'every object newer than the oldest, once, in list order');

    // Edges: after the oldest there is nothing; before the newest there is nothing.
    const end = await page(`&starting_after=${expected[24]}`);
    assert.deepEqual([end.data.length, end.has_more], [0, false]);
    const start = await page(`&ending_before=${expected[0]}`);
    assert.deepEqual([start.data.length, start.has_more], [0, false]);
    // A cursor in the middle.
    const mid = await page(`&starting_after=${expected[9]}`);
    assert.deepEqual(ids(mid), expected.slice(10, 20));
    assert.equal(mid.has_more, true);
  });
});

describe('filters', () => {
  const list = async (merchant: TestMerchant, url: string) => {
    const res = await get(app, merchant, url);
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json().data as Listed[];
  };

  test('reference: the exact, case-sensitive match, or nothing', async () => {
    const reference = uniqueRef('Filter');
    const id = await created(await post(app, m, '/v1/payments', paymentBody({ reference })));
    mine.payments.push(id);
    assert.deepEqual(
      (await list(m, `/v1/payments?reference=${reference}`)).map((p) => p.id),
      [id],
    );
    assert.deepEqual(await list(m, `/v1/payments?reference=${reference.toLowerCase()}`), []);
    assert.deepEqual(await list(m, `/v1/payments?reference=${reference.slice(0, -1)}`), []);
    assert.deepEqual(await list(other, `/v1/payments?reference=${reference}`), [], "another merchant's reference is not found");
    assert.deepEqual(await list(m, `/v1/topups?reference=${reference}`), [], 'a payment reference is not a top-up');
  });

  test('status, payment_method_type, and both together', async () => {
    // The card states: a 3-D Secure card waits for the payer, a manual capture waits for the merchant, one canceled.
    const cardPayment = async (overrides: Record<string, unknown>) =>
      created(await post(app, m, '/v1/payments', paymentBody({ capture_method: 'manual', ...overrides })));
    mine.payments.push(await cardPayment({ payment_method: cardMethod({ number: '4000000000003220' }) }));
    mine.payments.push(await cardPayment({}));
    const canceled = await cardPayment({});
    mine.payments.push(canceled);
    assert.equal((await post(app, m, `/v1/payments/${canceled}/cancel`, {})).json().status, 'canceled');
    const all = await list(m, '/v1/payments?limit=100');
    for (const status of ['pending', 'requires_action', 'requires_capture', 'succeeded', 'failed', 'canceled']) {
      const got = await list(m, `/v1/payments?limit=100&status=${status}`);
      assert.ok(got.length > 0, `some ${status}`);
      assert.deepEqual(
        got.map((p) => p.id),
        all.filter((p) => p.status === status).map((p) => p.id),
      );
    }
    for (const type of ['card', 'mobile_money', 'wallet']) {
      const got = await list(m, `/v1/payments?limit=100&payment_method_type=${type}`);
      assert.ok(got.length > 0, `some ${type}`);
      assert.deepEqual(
        got.map((p) => p.id),
        all.filter((p) => p.payment_method!.type === type).map((p) => p.id),
      );
    }
    const both = await list(m, '/v1/payments?limit=100&status=failed&payment_method_type=card');
    assert.deepEqual(
      both.map((p) => p.id),
      all.filter((p) => p.status === 'failed' && p.payment_method!.type === 'card').map((p) => p.id),
    );
    assert.ok(both.length > 0);

    const topups = await list(m, '/v1/topups?limit=100');
    const mm = await list(m, '/v1/topups?limit=100&payment_method_type=mobile_money');
    assert.deepEqual(
      mm.map((t) => t.id),
      topups.filter((t) => t.source!.type === 'mobile_money').map((t) => t.id),
    );
    assert.equal(mm.length, 1);
    assert.deepEqual(await list(m, '/v1/topups?payment_method_type=wallet'), []);
  });

  test('created_gte and created_lte: inclusive bounds, alone and together', async () => {
    const all = await list(m, '/v1/payments?limit=100');
    const times = all.map((p) => p.created_at).sort();
    const pivot = times[Math.floor(times.length / 2)]!;
    const first = times[0]!;
    const gte = await list(m, `/v1/payments?limit=100&created_gte=${pivot}`);
    assert.deepEqual(
      gte.map((p) => p.id),
      all.filter((p) => p.created_at >= pivot).map((p) => p.id),
    );
    const lte = await list(m, `/v1/payments?limit=100&created_lte=${pivot}`);
    assert.deepEqual(
      lte.map((p) => p.id),
      all.filter((p) => p.created_at <= pivot).map((p) => p.id),
    );
    const window = await list(m, `/v1/payments?limit=100&created_gte=${first}&created_lte=${pivot}`);
    assert.deepEqual(
      window.map((p) => p.id),
      all.filter((p) => p.created_at >= first && p.created_at <= pivot).map((p) => p.id),
    );
    // An offset time is the same instant.
    const shifted = new Date(Date.parse(pivot) + 3 * 3600_000).toISOString().replace('Z', '+03:00');
    const withOffset = await list(m, `/v1/payments?limit=100&created_gte=${encodeURIComponent(shifted)}`);
    assert.deepEqual(
      withOffset.map((p) => p.id),
      gte.map((p) => p.id),
    );
    assert.deepEqual(await list(m, '/v1/payments?created_gte=2999-01-01T00:00:00Z'), []);
    assert.deepEqual(await list(m, '/v1/payments?created_lte=2000-01-01T00:00:00Z'), []);
  });

  test('bad filter values → 400 parameter_invalid naming the filter', async () => {
    const bad: [string, string][] = [
      ['created_gte', 'yesterday'],
      ['created_gte', '2026-01-01'],
      ['created_gte', '2026-13-01T00:00:00Z'],
      ['created_gte', '2026-02-30T00:00:00Z'],
      ['created_gte', '2026-01-01T25:00:00Z'],
      ['created_gte', '2026-01-01T00:00:00'],
      ['created_gte', '1767225600'],
      ['created_lte', 'not-a-time'],
      ['created_lte', '2026-01-01T00:00:00%2B24:00'],
      ['created_lte', '2026-01-01T00:60:00Z'],
      ['status', 'done'],
      ['status', 'SUCCEEDED'],
      ['payment_method_type', 'bank'],
      ['reference', ''],
      ['reference', 'r'.repeat(129)],
      ['reference', 'a%00b'],
      ['reference', 'a%07b'],
    ];
    for (const url of ['/v1/payments', '/v1/topups']) {
      for (const [name, value] of bad) {
        assertApiError(await get(app, m, `${url}?${name}=${value}`), expect400.invalid(name), `${url}?${name}=${value.slice(0, 30)}`);
      }
    }
  });
});

describe('routes and methods', () => {
  test('an unknown route → 404 route_not_found, with or without a token', async () => {
    for (const [method, url] of [
      ['GET', '/v1/nope'],
      ['GET', '/v1/payments/x/y'],
      ['POST', '/v1/chargebacks'],
      ['GET', '/v1/Payments'],
      ['GET', '/v2/payments'],
      ['GET', '/payments'],
      ['GET', '//v1/payments'],
    ] as const) {
      for (const headers of [m.auth, {}]) {
        const res = await app.inject({ method, url, headers });
        assertApiError(res, { status: 404, code: 'route_not_found', param: null }, `${method} ${url}`);
      }
    }
  });

  test('a route one misspelt segment away is suggested, with the ids sent; nothing when none is near', async () => {
    for (const [method, url, guess] of [
      ['GET', '/v1/payment', 'GET /v1/payments'],
      ['GET', '/v1/Payments', 'GET /v1/payments'],
      ['GET', '/v1/topup/top_x', 'GET /v1/topups/top_x'],
      ['POST', '/v1/webhook_endpoint', 'POST /v1/webhook_endpoints'],
      ['GET', '/v2/balance', 'GET /v1/balance'],
      ['POST', '/v1/chargebacks', null],
      ['GET', '/v1/payments/x/y', null],
    ] as const) {
      const res = await app.inject({ method, url, headers: m.auth });
      assertApiError(res, { status: 404, code: 'route_not_found', param: null }, `${method} ${url}`);
      const message = res.json().error.message as string;
      if (guess === null) assert.doesNotMatch(message, /Did you mean/, url);
      else assert.equal(message, `No route ${method} ${url}. Did you mean ${guess}?`);
    }
  });

  test('a wrong method → 405 method_not_allowed with an Allow header', async () => {
    const cases: [string, string, string[]][] = [
      ['DELETE', `/v1/payments/${mine.payments[0]}`, ['GET']],
      ['PUT', `/v1/payments/${mine.payments[0]}`, ['GET']],
      ['PATCH', `/v1/topups/${mine.topups[0]}`, ['GET']],
      ['DELETE', `/v1/wallets/${myWallet}`, ['GET']],
      ['PUT', '/v1/payments', ['GET', 'POST']],
      ['DELETE', '/v1/topups', ['GET', 'POST']],
      ['GET', `/v1/wallets/${myWallet}/freeze`, ['POST']],
      ['POST', `/v1/wallets/${myWallet}/transactions`, ['GET']],
    ];
    for (const [method, url, allowed] of cases) {
      const res = await app.inject({ method: method as 'GET', url, headers: m.auth, ...(method === 'GET' ? {} : { payload: {} }) });
      assertApiError(res, { status: 405, code: 'method_not_allowed', param: null }, `${method} ${url}`);
      const allow = String(res.headers.allow).split(/,\s*/);
      for (const a of allowed) assert.ok(allow.includes(a), `${method} ${url}: Allow ${res.headers.allow} lacks ${a}`);
      assert.ok(!allow.includes(method), `${method} ${url}: Allow ${res.headers.allow} lists the refused method`);
    }
    // Nothing was deleted.
    assert.equal((await get(app, m, `/v1/payments/${mine.payments[0]}`)).statusCode, 200);
    assert.equal((await get(app, m, `/v1/wallets/${myWallet}`)).statusCode, 200);
  });

  test('GET of one object with an unknown query parameter → 400 parameter_unknown', async () => {
    for (const url of [`/v1/payments/${mine.payments[0]}`, `/v1/topups/${mine.topups[0]}`, `/v1/wallets/${myWallet}`]) {
      assertApiError(await get(app, m, `${url}?expand=customer`), expect400.unknown('expand'), url);
    }
  });

  test('the ledger is healthy after everything above', async () => {
    await assertLedgerHealthy(app);
    const balance = (await get(app, m, `/v1/wallets/${myWallet}`)).json().balance;
    assert.equal(balance, '990.00', 'funded 1000.00, paid 10.00; the pending mobile-money top-up credits nothing yet');
  });
});
