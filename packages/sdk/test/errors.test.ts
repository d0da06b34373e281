// How answers become PurseError, against a fake Purse: the API's envelope, the token endpoint's
// OAuth errors, answers that are not JSON; and the CSV statement, which is text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Purse, PurseError } from '../src/index.ts';
import { type Reply, startFakePurse } from './fake-purse.ts';

async function failing(reply: Reply, path = '/v1/payments/pay_1') {
  const fake = await startFakePurse((req) => (req.path === path ? reply : undefined));
  const purse = new Purse({ baseUrl: fake.base, clientId: 'cli_1', clientSecret: 'sk_test_1', maxRetries: 0 });
  try {
    await purse.payments.retrieve('pay_1');
  } catch (error) {
    return error;
  } finally {
    await fake.close();
  }
  assert.fail('the call should have failed');
}

test("the API's envelope: status, type, code, message, param and the request id", async () => {
  const error = await failing({
    status: 400,
    headers: { 'request-id': 'req_header' },
    json: {
      error: {
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        message: 'amount must have at most 2 decimals.',
        param: 'amount',
        request_id: 'req_body',
      },
    },
  });
  assert.ok(error instanceof PurseError && error instanceof Error);
  assert.equal(error.name, 'PurseError');
  assert.deepEqual(
    { status: error.status, type: error.type, code: error.code, param: error.param, requestId: error.requestId, message: error.message },
    {
      status: 400,
      type: 'invalid_request_error',
      code: 'parameter_invalid',
      param: 'amount',
      requestId: 'req_body',
      message: 'amount must have at most 2 decimals.',
    },
  );
});

test('without a request_id in the body, the request-id header; without a param, null', async () => {
  const error = (await failing({
    status: 404,
    headers: { 'request-id': 'req_header' },
    json: { error: { type: 'invalid_request_error', code: 'resource_not_found', message: 'No such payment.' } },
  })) as PurseError;
  assert.equal(error.requestId, 'req_header');
  assert.equal(error.param, null);
  assert.equal(error.code, 'resource_not_found');
});

test('an answer that is not the envelope (an HTML 502 from a proxy, an empty 404) still gives status and a code', async () => {
  const html = (await failing({ status: 502, text: '<html>Bad gateway</html>' })) as PurseError;
  assert.deepEqual([html.status, html.type, html.code, html.message], [502, 'api_error', 'http_error', 'HTTP 502']);
  const empty = (await failing({ status: 404, text: '' })) as PurseError;
  assert.deepEqual([empty.status, empty.type, empty.code], [404, 'invalid_request_error', 'http_error']);
});

test("the token endpoint's OAuth error is an authentication_error with its code and description", async () => {
  const fake = await startFakePurse((req) =>
    req.path === '/oauth/token'
      ? { status: 401, json: { error: 'invalid_client', error_description: 'Client authentication failed.' } }
      : undefined,
  );
  try {
    const purse = new Purse({ baseUrl: fake.base, clientId: 'cli_1', clientSecret: 'wrong' });
    await assert.rejects(purse.balance.retrieve(), (e: unknown) => {
      assert.ok(e instanceof PurseError);
      assert.deepEqual(
        [e.status, e.type, e.code, e.message],
        [401, 'authentication_error', 'invalid_client', 'Client authentication failed.'],
      );
      return true;
    });
    assert.equal(fake.calls().length, 0, 'no API call without a token');
  } finally {
    await fake.close();
  }
});

test('the CSV statement is text, asked for with Accept: text/csv; filters in the query string', async (t) => {
  const csv = 'id,created_at,source_type,source_id,currency,amount,balance_after\r\n';
  const fake = await startFakePurse((req) => (req.path === '/v1/balance_transactions' ? { status: 200, text: csv } : undefined));
  t.after(() => fake.close());
  const purse = new Purse({ baseUrl: `${fake.base}/`, clientId: 'cli_1', clientSecret: 'sk_test_1' });
  assert.equal(await purse.balanceTransactions.csv({ currency: 'KES' }), csv);
  assert.equal(fake.calls()[0]!.url, '/v1/balance_transactions?currency=KES', 'a trailing slash of baseUrl is dropped');
  assert.equal(fake.calls()[0]!.headers.accept, 'text/csv');
});

test('new Purse without baseUrl or credentials is a TypeError at once', () => {
  assert.throws(() => new Purse({} as never), TypeError);
  assert.throws(() => new Purse({ baseUrl: 'http://127.0.0.1:1' } as never), /clientId and clientSecret are required/);
});
