// The messages a new developer reads for the usual mistakes (docs/api.md §3, "Common mistakes"):
// each names the field and says what is expected in plain words, with the contract's code. Money
// and currency messages come from one schema each, so every route answers with the same words.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { assertApiError, edit, REMOVE, type Reply, storedCounts } from '../helpers/bad-input.ts';
import { cardMethod, get, mobileMethod, paymentBody, post, uniqueRef } from '../helpers/factories.ts';

let app: TestApp;
let m: TestMerchant;

before(async () => {
  app = await buildTestApp(null);
  m = await createTestMerchant(app, 'Messages');
});

after(async () => {
  await app.close();
  await app.deps.close();
});

// Well-formed ids that name nothing: the schema refuses these bodies before any lookup.
const WALLET = 'wal_01jd6x8v1ffq8v2k3m4n5p6q7r';
const OTHER_WALLET = 'wal_01jd6x9c4tfq8v2k3m4n5p6q7s';
const PAYMENT = 'pay_01jd6x8v1ffq8v2k3m4n5p6q7r';

/** A valid body for every route that takes money, with `amount` and (but refunds) `currency`. */
const MONEY_BODIES: Record<string, () => Record<string, unknown>> = {
  '/v1/payments': () => paymentBody({ amount: '10.50' }),
  '/v1/topups': () => ({ reference: uniqueRef('t'), amount: '10.50', currency: 'KES', wallet_id: WALLET, source: cardMethod() }),
  '/v1/refunds': () => ({ reference: uniqueRef('r'), payment_id: PAYMENT, amount: '10.50' }),
  '/v1/payouts': () => ({ reference: uniqueRef('p'), amount: '10.50', currency: 'KES', destination: mobileMethod() }),
  '/v1/transfers': () => ({
    reference: uniqueRef('x'),
    amount: '10.50',
    currency: 'KES',
    source_wallet_id: WALLET,
    destination_wallet_id: OTHER_WALLET,
  }),
};

/** Phrases of the JSON-schema validator that must never reach a developer. */
const VALIDATOR_WORDS = /must NOT|must be of type|must have required|additional properties|must match|invalid format|must be string/;

function refused(res: Reply, code: string, param: string | null, status = 400): string {
  const { message } = assertApiError(res, { status, code, param });
  assert.doesNotMatch(message, VALIDATOR_WORDS, message);
  return message;
}

describe('amounts are decimal strings', () => {
  const EXPECTED =
    'amount must be a decimal string of major units, such as "1500" or "10.50", not a JSON number: send "10.5" instead of 10.5 (numbers are refused, never rounded).';
  for (const [url, body] of Object.entries(MONEY_BODIES)) {
    test(`${url}: "amount": 10.5 → parameter_invalid showing the string to send; nothing stored`, async () => {
      const before = await storedCounts(app, m.merchantId);
      assert.equal(refused(await post(app, m, url, { ...body(), amount: 10.5 }), 'parameter_invalid', 'amount'), EXPECTED);
      assert.deepEqual(await storedCounts(app, m.merchantId), before);
    });
  }

  test('/v1/payments/{id}/capture: "amount": 10.5 → the same message (its schema is the same Amount)', async () => {
    const res = await post(app, m, `/v1/payments/${PAYMENT}/capture`, { amount: 10.5 });
    assert.equal(refused(res, 'parameter_invalid', 'amount'), EXPECTED);
  });

  test('a number whose text a double may not keep, or another JSON type, gets the form without an echo', async () => {
    // The JSON text of a number with more digits than a double keeps (its parsed value prints otherwise).
    const text = JSON.stringify(paymentBody({ amount: '?' })).replace('"amount":"?"', '"amount":12345678901234567');
    const big = await app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: { ...m.auth, 'content-type': 'application/json' },
      payload: text,
    });
    assert.match(refused(big, 'parameter_invalid', 'amount'), /not a JSON number: send the amount in quotes/);
    for (const amount of [null, true, { value: '10.50' }]) {
      const res = await post(app, m, '/v1/payments', paymentBody({ amount }));
      assert.equal(
        refused(res, 'parameter_invalid', 'amount'),
        'amount must be a decimal string of major units, such as "1500" or "10.50".',
      );
    }
  });

  test('a missing amount says the form; too many decimals says what the currency allows', async () => {
    const missing = await post(app, m, '/v1/payouts', edit(MONEY_BODIES['/v1/payouts']!(), 'amount', REMOVE));
    assert.equal(
      refused(missing, 'parameter_missing', 'amount'),
      'amount is required: a decimal string of major units, such as "1500" or "10.50".',
    );
    const ugx = await post(app, m, '/v1/payments', paymentBody({ amount: '10.5', currency: 'UGX' }));
    assert.match(refused(ugx, 'parameter_invalid', 'amount'), /UGX has no minor unit: send whole UGX, such as "1500"/);
    const kes = await post(app, m, '/v1/payments', paymentBody({ amount: '10.505' }));
    assert.match(refused(kes, 'parameter_invalid', 'amount'), /more decimals than KES allows: at most 2, such as "10.50"/);
  });
});

describe('currencies are upper-case ISO 4217 codes', () => {
  const CURRENCY_BODIES: Record<string, () => Record<string, unknown>> = {
    ...MONEY_BODIES,
    '/v1/wallets': () => ({ currency: 'KES' }),
  };
  for (const [url, body] of Object.entries(CURRENCY_BODIES)) {
    if (!('currency' in body())) continue;
    test(`${url}: "kes" → parameter_invalid echoing "KES"`, async () => {
      const res = await post(app, m, url, { ...body(), currency: 'kes' });
      assert.equal(refused(res, 'parameter_invalid', 'currency'), 'currency must be an upper-case ISO 4217 code: send "KES", not "kes".');
    });
  }

  test('the balance-transactions filter answers alike; padding, other lengths and types get the plain rule', async () => {
    const filter = await get(app, m, '/v1/balance_transactions?currency=ugx');
    assert.equal(refused(filter, 'parameter_invalid', 'currency'), 'currency must be an upper-case ISO 4217 code: send "UGX", not "ugx".');
    const padded = await post(app, m, '/v1/wallets', { currency: ' kes ' });
    assert.equal(refused(padded, 'parameter_invalid', 'currency'), 'currency must be an upper-case ISO 4217 code: send "KES" (no spaces).');
    for (const currency of ['KESH', 404, 'K3S']) {
      const res = await post(app, m, '/v1/wallets', { currency });
      assert.equal(
        refused(res, 'parameter_invalid', 'currency'),
        'currency must be an upper-case ISO 4217 code of three letters, such as "KES".',
      );
    }
    // A well-formed code the service does not take keeps its own code and message.
    assertApiError(await post(app, m, '/v1/wallets', { currency: 'XYZ' }), {
      status: 400,
      code: 'currency_not_supported',
      param: 'currency',
    });
  });
});

describe('limit', () => {
  const LISTS = ['/v1/payments', '/v1/topups', '/v1/refunds', '/v1/payouts', '/v1/transfers', '/v1/wallets', '/v1/events'];
  const LIMIT = 'limit must be a whole number from 1 to 100 (the default is 10).';
  test('1000, 101, 0, -1, abc, 1.5, 1e2 and empty give one message on every list', async () => {
    for (const url of [...LISTS, '/v1/balance_transactions', '/v1/webhook_endpoints']) {
      for (const limit of ['1000', '101', '0', '-1', 'abc', '1.5', '1e2', '']) {
        const res = await get(app, m, `${url}?limit=${limit}`);
        assert.equal(refused(res, 'parameter_invalid', 'limit'), LIMIT, `${url}?limit=${limit}`);
      }
      assert.equal((await get(app, m, `${url}?limit=100`)).statusCode, 200, `${url}?limit=100`);
    }
  });

  test('limit twice → says so', async () => {
    const res = await get(app, m, '/v1/payments?limit=5&limit=6');
    assert.equal(refused(res, 'parameter_invalid', 'limit'), 'limit is given more than once; send it once.');
  });
});

interface Mistake {
  name: string;
  send: () => Promise<Reply>;
  code: string;
  param: string | null;
  message: string | RegExp;
}

const pay = (overrides: Record<string, unknown>) => () => post(app, m, '/v1/payments', paymentBody(overrides));
const card = (fields: Record<string, unknown>) => ({ type: 'card', card: { ...cardMethod().card, ...fields } });

const MISTAKES: Mistake[] = [
  {
    name: 'a misspelt field',
    send: pay({ amout: '1.00' }),
    code: 'parameter_unknown',
    param: 'amout',
    message: 'amout is not a known parameter. Did you mean amount?',
  },
  {
    name: 'a camelCase field',
    send: pay({ callbackUrl: 'https://a.example' }),
    code: 'parameter_unknown',
    param: 'callbackUrl',
    message: /Did you mean callback_url\?$/,
  },
  {
    name: 'an unknown field with no near miss',
    send: () => post(app, m, '/v1/wallets', { currency: 'KES', colour: 'red' }),
    code: 'parameter_unknown',
    param: 'colour',
    message: 'colour is not a known parameter. Known body parameters: currency, reference, holder, metadata.',
  },
  {
    name: 'an unknown nested field',
    send: pay({ payment_method: card({ expiry: '12/30' }) }),
    code: 'parameter_unknown',
    param: 'payment_method.card.expiry',
    message:
      'payment_method.card.expiry is not a known parameter. Known in payment_method.card: number, exp_month, exp_year, cvc, holder_name.',
  },
  {
    name: 'a list filter under a near name',
    send: () => get(app, m, '/v1/payments?state=failed'),
    code: 'parameter_unknown',
    param: 'state',
    message: 'state is not a known parameter. Did you mean status?',
  },
  {
    name: 'an unknown list filter',
    send: () => get(app, m, '/v1/payments?order=asc'),
    code: 'parameter_unknown',
    param: 'order',
    message: /^order is not a known parameter\. Known query parameters: limit, starting_after, ending_before, reference, status,/,
  },
  {
    name: 'a query on a retrieve',
    send: () => get(app, m, `/v1/payments/${PAYMENT}?expand=customer`),
    code: 'parameter_unknown',
    param: 'expand',
    message: 'expand is not a known parameter. This route takes no query parameters.',
  },
  {
    name: 'a body field where the route takes none',
    send: () => post(app, m, `/v1/wallets/${WALLET}/freeze`, { status: 'inactive' }),
    code: 'parameter_unknown',
    param: 'status',
    message: 'status is not a known parameter. This route takes no body parameters.',
  },
  {
    name: 'a number for a string',
    send: pay({ reference: 1001 }),
    code: 'parameter_invalid',
    param: 'reference',
    message: 'reference must be a string, not a number.',
  },
  {
    name: 'a string for a whole number',
    send: pay({ payment_method: card({ exp_month: '12' }) }),
    code: 'parameter_invalid',
    param: 'payment_method.card.exp_month',
    message: 'payment_method.card.exp_month must be a whole number, not a string.',
  },
  {
    name: 'a month out of range',
    send: pay({ payment_method: card({ exp_month: 13 }) }),
    code: 'parameter_invalid',
    param: 'payment_method.card.exp_month',
    message: 'payment_method.card.exp_month must be from 1 to 12.',
  },
  {
    name: 'a metadata value that is a number',
    send: pay({ metadata: { order_id: 1001 } }),
    code: 'parameter_invalid',
    param: 'metadata.order_id',
    message: 'metadata.order_id must be a string, not a number.',
  },
  {
    name: 'a string for an object',
    send: pay({ payment_method: 'card' }),
    code: 'parameter_invalid',
    param: 'payment_method',
    message: 'payment_method must be an object, not a string.',
  },
  {
    name: 'a missing field',
    send: () => post(app, m, '/v1/payments', edit(paymentBody(), 'reference', REMOVE)),
    code: 'parameter_missing',
    param: 'reference',
    message: 'reference is required.',
  },
  {
    name: 'a required field sent under a camelCase name',
    send: pay({ payment_method: { type: 'mobile_money', mobile_money: { phoneNumber: '+254712345678' } } }),
    code: 'parameter_missing',
    param: 'payment_method.mobile_money.phone_number',
    message:
      'payment_method.mobile_money.phone_number is required (was it sent as phoneNumber? Names are spelt exactly as documented, in snake_case).',
  },
  {
    name: 'an Idempotency-Key header instead of a reference (a habit from other payment APIs)',
    send: () =>
      app.inject({
        method: 'POST',
        url: '/v1/payments',
        headers: { ...m.auth, 'idempotency-key': 'order-7' },
        payload: edit(paymentBody(), 'reference', REMOVE) as object,
      }),
    code: 'parameter_missing',
    param: 'reference',
    message:
      'reference is required: Purse reads no Idempotency-Key header; the reference, unique in your account, is what makes a retry safe (send your key as reference).',
  },
  {
    name: 'a required field sent under another name: the fields the object takes',
    send: pay({ payment_method: { type: 'mobile_money', mobile_money: { phone: '+254712345678' } } }),
    code: 'parameter_missing',
    param: 'payment_method.mobile_money.phone_number',
    message:
      'payment_method.mobile_money.phone_number is required (phone is not known in payment_method.mobile_money, which takes: phone_number, provider).',
  },
  {
    name: 'the object of another means than type names: both ways out',
    send: pay({ payment_method: { type: 'card', mobile_money: { phone_number: '+254712345678' } } }),
    code: 'parameter_missing',
    param: 'payment_method.card',
    message:
      'payment_method.card is required when payment_method.type is card; mobile_money was sent instead: send card, or set type to mobile_money.',
  },
  {
    name: 'a description too long',
    send: pay({ description: 'x'.repeat(256) }),
    code: 'parameter_invalid',
    param: 'description',
    message: 'description must be at most 255 characters long.',
  },
  {
    name: 'an empty reference',
    send: pay({ reference: '' }),
    code: 'parameter_invalid',
    param: 'reference',
    message: 'reference must not be empty.',
  },
  {
    name: 'a refund reason of the wrong type',
    send: () => post(app, m, '/v1/refunds', { reference: uniqueRef('r'), payment_id: PAYMENT, reason: 5 }),
    code: 'parameter_invalid',
    param: 'reason',
    message: 'reason must be one of: requested_by_customer, duplicate, fraudulent (or null).',
  },
  {
    name: 'an empty list of events',
    send: () => post(app, m, '/v1/webhook_endpoints', { url: 'https://a.example/h', events: [] }),
    code: 'parameter_invalid',
    param: 'events',
    message: 'events must list at least 1 item.',
  },
  {
    name: 'a string for a list',
    send: () => post(app, m, '/v1/webhook_endpoints', { url: 'https://a.example/h', events: 'payment.succeeded' }),
    code: 'parameter_invalid',
    param: 'events',
    message: 'events must be a list (a JSON array), not a string.',
  },
  {
    name: 'a number for a nullable string',
    send: () =>
      app.inject({
        method: 'PATCH',
        url: '/v1/webhook_endpoints/whe_01jd6x8v1ffq8v2k3m4n5p6q7r',
        headers: m.auth,
        payload: { description: 5 },
      }),
    code: 'parameter_invalid',
    param: 'description',
    message: 'description must be a string or null, not a number.',
  },
  {
    name: 'an edit with no field',
    send: () => app.inject({ method: 'PATCH', url: '/v1/webhook_endpoints/whe_01jd6x8v1ffq8v2k3m4n5p6q7r', headers: m.auth, payload: {} }),
    code: 'invalid_json',
    param: null,
    message: 'The request body must have at least 1 field (of: url, events, description, status).',
  },
];

describe('the validator speaks plain words', () => {
  for (const mistake of MISTAKES) {
    test(`${mistake.name} → ${mistake.code}${mistake.param ? ` (${mistake.param})` : ''}`, async () => {
      const message = refused(await mistake.send(), mistake.code, mistake.param);
      if (typeof mistake.message === 'string') assert.equal(message, mistake.message);
      else assert.match(message, mistake.message);
    });
  }
});
