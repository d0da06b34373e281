import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../config.ts';
import { ConfigError } from '../../shared/env.ts';
import { readMpesaConfig } from './config.ts';

const FULL = {
  PURSE_MPESA_BASE_URL: 'https://sandbox.safaricom.co.ke/',
  PURSE_MPESA_CONSUMER_KEY: 'consumer-key-secret',
  PURSE_MPESA_CONSUMER_SECRET: 'consumer-secret-secret',
  PURSE_MPESA_SHORTCODE: '174379',
  PURSE_MPESA_PASSKEY: 'passkey-secret',
  PURSE_MPESA_B2C_SHORTCODE: '600000',
  PURSE_MPESA_INITIATOR_NAME: 'testapi',
  PURSE_MPESA_SECURITY_CREDENTIAL: 'credential-secret',
  PURSE_PUBLIC_URL: 'https://pay.example.com/',
};

/** A ConfigError with exactly this message (the class is what main.ts reports as a configuration problem). */
const refusedWith = (message: string) => (error: unknown) => error instanceof ConfigError && error.message === message;

test('M-Pesa is off when none of its variables is set; the public URL alone does not turn it on', () => {
  assert.equal(readMpesaConfig({}), null);
  assert.equal(readMpesaConfig({ PURSE_PUBLIC_URL: 'https://pay.example.com' }), null);
  assert.equal(loadConfig({}).mpesa, null);
});

test('all set: read, frozen, trailing slashes dropped; loadConfig carries it as Config.mpesa', () => {
  const mpesa = readMpesaConfig(FULL);
  assert.deepEqual(mpesa, {
    baseUrl: 'https://sandbox.safaricom.co.ke',
    consumerKey: 'consumer-key-secret',
    consumerSecret: 'consumer-secret-secret',
    shortcode: '174379',
    passkey: 'passkey-secret',
    b2cShortcode: '600000',
    initiatorName: 'testapi',
    securityCredential: 'credential-secret',
    publicUrl: 'https://pay.example.com',
  });
  assert.ok(Object.isFrozen(mpesa));
  assert.deepEqual(loadConfig(FULL).mpesa, mpesa);
});

test('a partial set is refused, naming what is missing and never a value', () => {
  const { PURSE_MPESA_PASSKEY: _passkey, ...partial } = FULL;
  assert.throws(
    () => loadConfig(partial),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.message, 'M-Pesa Daraja is partly configured: missing PURSE_MPESA_PASSKEY');
      assert.ok(!error.message.includes('secret'), error.message);
      return true;
    },
  );
});

test('URLs must be http(s) and shortcodes 5 to 7 digits', () => {
  assert.throws(
    () => readMpesaConfig({ ...FULL, PURSE_MPESA_BASE_URL: 'safaricom' }),
    refusedWith('PURSE_MPESA_BASE_URL must be an http(s) URL'),
  );
  for (const shortcode of ['1234', '12345678', '17437a']) {
    assert.throws(
      () => readMpesaConfig({ ...FULL, PURSE_MPESA_B2C_SHORTCODE: shortcode }),
      refusedWith('PURSE_MPESA_B2C_SHORTCODE must be a shortcode of 5 to 7 digits'),
    );
  }
});
