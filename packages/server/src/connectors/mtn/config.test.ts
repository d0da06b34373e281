import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../config.ts';
import { ConfigError } from '../../shared/env.ts';
import { readMtnConfig } from './config.ts';

const FULL = {
  PURSE_MTN_BASE_URL: 'https://sandbox.momodeveloper.mtn.com/',
  PURSE_MTN_TARGET_ENVIRONMENT: 'sandbox',
  PURSE_MTN_COLLECTION_SUBSCRIPTION_KEY: 'collection-sub-secret',
  PURSE_MTN_COLLECTION_API_USER: 'collection-user',
  PURSE_MTN_COLLECTION_API_KEY: 'collection-key-secret',
  PURSE_MTN_DISBURSEMENT_SUBSCRIPTION_KEY: 'disbursement-sub-secret',
  PURSE_MTN_DISBURSEMENT_API_USER: 'disbursement-user',
  PURSE_MTN_DISBURSEMENT_API_KEY: 'disbursement-key-secret',
  PURSE_PUBLIC_URL: 'https://pay.example.com//',
};

/** A ConfigError with exactly this message (the class is what main.ts reports as a configuration problem). */
const refusedWith = (message: string) => (error: unknown) => error instanceof ConfigError && error.message === message;

test('MTN is off when none of its variables is set; the public URL alone does not turn it on', () => {
  assert.equal(readMtnConfig({}), null);
  assert.equal(readMtnConfig({ PURSE_PUBLIC_URL: 'https://pay.example.com', PURSE_MTN_BASE_URL: '' }), null);
  assert.equal(loadConfig({}).mtn, null);
});

test('all set: read, frozen, trailing slashes dropped; loadConfig carries it as Config.mtn', () => {
  const mtn = readMtnConfig(FULL);
  assert.deepEqual(mtn, {
    baseUrl: 'https://sandbox.momodeveloper.mtn.com',
    targetEnvironment: 'sandbox',
    publicUrl: 'https://pay.example.com',
    collection: { subscriptionKey: 'collection-sub-secret', apiUser: 'collection-user', apiKey: 'collection-key-secret' },
    disbursement: { subscriptionKey: 'disbursement-sub-secret', apiUser: 'disbursement-user', apiKey: 'disbursement-key-secret' },
  });
  assert.ok(Object.isFrozen(mtn) && Object.isFrozen(mtn?.collection) && Object.isFrozen(mtn?.disbursement));
  assert.deepEqual(loadConfig(FULL).mtn, mtn);
});

test('a partial set is refused, naming what is missing and never a value', () => {
  const { PURSE_MTN_DISBURSEMENT_API_KEY: _key, PURSE_PUBLIC_URL: _url, ...partial } = FULL;
  assert.throws(
    () => loadConfig(partial),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.message, 'MTN MoMo is partly configured: missing PURSE_MTN_DISBURSEMENT_API_KEY, PURSE_PUBLIC_URL');
      return true;
    },
  );
});

test('a base or public URL that is not http(s) is refused by name', () => {
  assert.throws(
    () => readMtnConfig({ ...FULL, PURSE_MTN_BASE_URL: 'ftp://mtn' }),
    refusedWith('PURSE_MTN_BASE_URL must be an http(s) URL'),
  );
  assert.throws(() => readMtnConfig({ ...FULL, PURSE_PUBLIC_URL: 'not a url' }), refusedWith('PURSE_PUBLIC_URL must be an http(s) URL'));
});
