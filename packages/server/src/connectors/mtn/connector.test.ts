import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callbackTokenOf } from '../callback-token.ts';
import { createMtnConnector } from './connector.ts';
import { mtnKeys } from './transformers.ts';

const hashKey = Buffer.alloc(32, 3);
const creds = { subscriptionKey: 'sub', apiUser: 'user', apiKey: 'key' };
const mtn = createMtnConnector({
  hashKey,
  config: {
    baseUrl: 'http://127.0.0.1:9',
    targetEnvironment: 'sandbox',
    publicUrl: 'https://purse.example',
    collection: creds,
    disbursement: creds,
  },
});

test('MTN serves live MTN mobile money only, and refuses a card refund', async () => {
  assert.deepEqual(mtn.serves, [{ means: 'mobile_money', network: 'mtn', livemode: true }]);
  await assert.rejects(
    mtn.sendOut(
      {
        idempotencyKey: 're_1',
        kind: 'refund',
        amountMinor: 100n,
        currency: 'EUR',
        destination: { type: 'card', paymentKey: 'pay_1', paymentProviderReference: null },
      },
      new AbortController().signal,
    ),
    /only mobile money/,
  );
});

test("a callback is verified by the URL's token for the body's externalId, in constant time", () => {
  const token = callbackTokenOf(mtnKeys(hashKey).callback, 'pay_1');
  const body = JSON.stringify({ externalId: 'pay_1', status: 'SUCCESSFUL' });
  assert.equal(mtn.callbacks.verify({}, body, { t: token }), true);
  assert.equal(mtn.callbacks.verify({}, body, {}), false, 'no token');
  assert.equal(mtn.callbacks.verify({}, body, { t: [token, token] }), false, 'repeated');
  assert.equal(mtn.callbacks.verify({}, JSON.stringify({ externalId: 'pay_2' }), { t: token }), false, 'another object');
  assert.equal(mtn.callbacks.verify({}, 'not json', { t: token }), false);
  const forged = (token.startsWith('A') ? 'B' : 'A') + token.slice(1);
  assert.equal(mtn.callbacks.verify({}, body, { t: forged }), false, 'one character changed');
});
