import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';

test('the seed token exchange gives a token that reads the merchant', async (t) => {
  const app = await buildTestApp(t);
  const merchant = await createTestMerchant(app, 'Smoke');
  const response = await app.inject({ method: 'GET', url: '/v1/merchant', headers: merchant.auth });
  assert.equal(response.statusCode, 200);
  assert.equal(response.json().id, merchant.merchantId);
  assert.match(String(response.headers['request-id']), /^req_/);
  assert.equal(response.headers['api-version'], '1.0.0');
});
