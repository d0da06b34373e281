import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callbackTokenOf, type TokenEncoding, verifyCallbackToken } from './callback-token.ts';

const key = Buffer.alloc(32, 9);
const otherKey = Buffer.alloc(32, 10);

/** The token with its first character replaced by another of the same alphabet. */
const changed = (token: string) => (token.startsWith('a') ? 'b' : 'a') + token.slice(1);

test('the right token is accepted, in each encoding', () => {
  for (const encoding of ['base64url', 'base64', 'hex'] as TokenEncoding[]) {
    const token = callbackTokenOf(key, 'pay_1', encoding);
    assert.equal(verifyCallbackToken(key, 'pay_1', token, encoding), true, encoding);
  }
  assert.match(callbackTokenOf(key, 'pay_1'), /^[A-Za-z0-9_-]{43}$/, 'base64url by default: 43 characters in a URL');
  assert.match(callbackTokenOf(key, 'pay_1', 'hex'), /^[0-9a-f]{64}$/);
  // Hex is one value whichever the case a provider writes it in.
  assert.equal(verifyCallbackToken(key, 'pay_1', callbackTokenOf(key, 'pay_1', 'hex').toUpperCase(), 'hex'), true);
});

test('a wrong token is refused: another message, another key, one character changed', () => {
  const token = callbackTokenOf(key, 'pay_1');
  assert.equal(verifyCallbackToken(key, 'pay_2', token), false, 'the token of another object');
  assert.equal(verifyCallbackToken(otherKey, 'pay_1', token), false, 'made under another key');
  assert.equal(verifyCallbackToken(key, 'pay_1', changed(token)), false, 'one character changed');
  assert.equal(verifyCallbackToken(key, 'pay_1', callbackTokenOf(key, 'pay_1', 'hex'), 'base64url'), false, 'another encoding');
});

test('a missing or malformed token is refused without throwing', () => {
  const token = callbackTokenOf(key, 'pay_1');
  for (const given of [undefined, null, '', 42, [token], [token, token], { token }]) {
    assert.equal(verifyCallbackToken(key, 'pay_1', given), false, JSON.stringify(given));
  }
  // Characters outside the alphabet would be skipped by the decoder; they are refused instead.
  assert.equal(verifyCallbackToken(key, 'pay_1', `${token.slice(0, 42)}!`), false);
  assert.equal(verifyCallbackToken(key, 'pay_1', `${token.slice(0, 42)}=`), false);
});

test('a token of another length is refused, shorter or longer, in every encoding', () => {
  for (const encoding of ['base64url', 'base64', 'hex'] as TokenEncoding[]) {
    const token = callbackTokenOf(key, 'pay_1', encoding);
    for (const given of [token.slice(0, -1), token.slice(0, 10), `${token}A`, `${token}${token}`, 'a']) {
      assert.equal(verifyCallbackToken(key, 'pay_1', given, encoding), false, `${encoding}: ${given.length} characters`);
    }
  }
  // A base64url token padded as base64 would decode to the same bytes: refused, by its length.
  assert.equal(verifyCallbackToken(key, 'pay_1', `${callbackTokenOf(key, 'pay_1')}=`), false);
});
