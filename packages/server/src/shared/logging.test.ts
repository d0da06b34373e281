import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loggedPath } from './logging.ts';

test('loggedPath: no query string, and the token of a capability URL replaced', () => {
  assert.equal(loggedPath('/v1/payments?reference=secret'), '/v1/payments');
  assert.equal(loggedPath('/pay/AbC_-123'), '/pay/[token]');
  assert.equal(loggedPath('/pay/AbC_-123/status?x=1'), '/pay/[token]/status');
  assert.equal(loggedPath('/pay/link/AbC_-123'), '/pay/link/[token]');
  assert.equal(loggedPath('/pay/assets/pay.js'), '/pay/assets/pay.js');
  assert.equal(loggedPath('/3ds/pay_123/AbC_-123/return'), '/3ds/pay_123/[token]/return');
  assert.equal(loggedPath('/dashboard/'), '/dashboard/');
});
