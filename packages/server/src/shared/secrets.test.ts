import assert from 'node:assert/strict';
import { test } from 'node:test';
import { constantTimeEqual, keyedHash, newSecret } from './secrets.ts';

test('newSecret carries 256 random bits behind its prefix', () => {
  const a = newSecret('sk_test');
  const b = newSecret('sk_test');
  assert.match(a, /^sk_test_[A-Za-z0-9_-]{43}$/);
  assert.notEqual(a, b);
});

test('keyedHash depends on the key', () => {
  const k1 = Buffer.alloc(32, 1);
  const k2 = Buffer.alloc(32, 2);
  assert.equal(keyedHash(k1, 'x'), keyedHash(k1, 'x'));
  assert.notEqual(keyedHash(k1, 'x'), keyedHash(k2, 'x'));
});

test('constantTimeEqual compares exactly', () => {
  assert.equal(constantTimeEqual('abc', 'abc'), true);
  assert.equal(constantTimeEqual('abc', 'abd'), false);
  assert.equal(constantTimeEqual('abc', 'abcd'), false);
});

test('encryptSecret round-trips and detects tampering', async () => {
  const { decryptSecret, encryptSecret, newWebhookSecret } = await import('./secrets.ts');
  const key = Buffer.alloc(32, 7);
  const secret = newWebhookSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const sealed = encryptSecret(key, secret);
  assert.equal(sealed.includes(secret), false);
  assert.equal(decryptSecret(key, sealed), secret);
  const parts = sealed.split('.');
  parts[3] = Buffer.from('tampered').toString('base64url');
  assert.throws(() => decryptSecret(key, parts.join('.')));
  assert.throws(() => decryptSecret(Buffer.alloc(32, 8), sealed));
});
