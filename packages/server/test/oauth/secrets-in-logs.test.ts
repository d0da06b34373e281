// Rule 9 of docs/money-safety.md: a client secret or an access token never reaches a log line.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { loggerOptions, REDACT_PATHS } from '../../src/shared/logging.ts';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { basic, formEncodeStrict, getMerchant, grant, tokenForm, tokenJson } from './support.ts';

/** A pino logger at debug level, configured as the app's own (same redaction), writing into memory. */
function memoryLogger() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const options = loggerOptions('debug') as pino.LoggerOptions;
  assert.deepEqual((options.redact as { paths: string[] }).paths, REDACT_PATHS);
  const logger = pino(options, stream);
  return { logger, text: () => chunks.join('') };
}

/** Every way a secret could show up: whole, its random part, form-encoded, percent-encoded, base64. */
function forms(secret: string): string[] {
  const random = secret.replace(/^([a-z]+_)+/, '');
  return [secret, random, formEncodeStrict(secret), encodeURIComponent(secret), Buffer.from(secret).toString('base64')];
}

test('no client secret and no access token in the logs of token exchanges and authenticated requests', async (t) => {
  const { logger, text } = memoryLogger();
  const app = await buildTestApp(t, { logger, env: { LOG_LEVEL: 'debug', PURSE_TOKEN_FAILURE_LIMIT: '3' } });
  const m = await createTestMerchant(app, 'Logs');
  const tokens = [m.token];

  // Token exchanges: JSON, form, Basic (encoded and raw).
  for (const response of [
    await tokenJson(app, grant(m.clientId, m.clientSecret)),
    await tokenForm(app, grant(m.clientId, m.clientSecret)),
    await tokenForm(app, { grant_type: 'client_credentials' }, basic(m.clientId, m.clientSecret, true)),
    await tokenJson(app, { grant_type: 'client_credentials' }, basic(m.clientId, m.clientSecret, false)),
  ]) {
    assert.equal(response.statusCode, 200, response.body);
    tokens.push(response.json().access_token);
  }

  // Refusals that carry the secret or a token: both places, bad grant, too large, GET with a query, malformed JSON.
  const refusals = [
    await tokenJson(app, grant(m.clientId, m.clientSecret), basic(m.clientId, m.clientSecret)),
    await tokenJson(app, { ...grant(m.clientId, m.clientSecret), grant_type: 'password' }),
    await tokenJson(app, { ...grant(m.clientId, m.clientSecret), pad: 'x'.repeat(5000) }),
    await tokenJson(app, `{"grant_type":"client_credentials","client_id":"${m.clientId}","client_secret":"${m.clientSecret}"`),
    await tokenForm(app, `${new URLSearchParams(grant(m.clientId, m.clientSecret)).toString()}&client_id=again`),
    await app.inject({ method: 'GET', url: `/oauth/token?${new URLSearchParams(grant(m.clientId, m.clientSecret)).toString()}` }),
    await app.inject({
      method: 'POST',
      url: `/oauth/token?client_secret=${encodeURIComponent(m.clientSecret)}`,
      payload: grant(m.clientId, 'x'),
    }),
  ];
  assert.deepEqual(
    refusals.map((r) => r.statusCode),
    [400, 400, 413, 400, 400, 405, 401],
  );

  // Authenticated requests, and tokens where they do not belong.
  for (const token of tokens) assert.equal((await getMerchant(app, { authorization: `Bearer ${token}` })).statusCode, 200);
  assert.equal((await getMerchant(app, { authorization: `bearer ${m.token}` })).statusCode, 200);
  assert.equal((await getMerchant(app, {}, `/v1/merchant?access_token=${m.token}`)).statusCode, 401);
  assert.equal((await getMerchant(app, { authorization: `Bearer ${m.token}x` })).statusCode, 401);
  assert.equal((await getMerchant(app, { authorization: `Bearer ${m.token}` }, `/v1/nope?access_token=${m.token}`)).statusCode, 404);
  assert.equal(
    (await getMerchant(app, { authorization: `Basic ${Buffer.from(`${m.clientId}:${m.clientSecret}`).toString('base64')}` })).statusCode,
    401,
  );

  // Failures up to the throttle, with near-miss secrets, then the rotation that revokes.
  for (let i = 0; i < 4; i++) await tokenJson(app, grant(m.clientId, `${m.clientSecret.slice(0, -1)}${i}`));
  const rotated = await app.deps.services.merchants.rotateSecret(m.merchantId);
  assert.ok(rotated.ok);

  // A positive control: the capture works and logged objects are redacted, not dropped.
  app.log.info(
    { client_secret: m.clientSecret, nested: { access_token: m.token }, headers: { authorization: `Bearer ${m.token}` } },
    'canary',
  );

  const output = text();
  const lines = output.split('\n').filter((line) => line !== '');
  assert.ok(lines.length >= 20, `expected request log lines, got ${lines.length}`);
  for (const line of lines) JSON.parse(line);
  const completed = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request completed');
  assert.ok(
    completed.some((entry) => entry.route === '/oauth/token' && entry.status === 200),
    'token requests are logged',
  );
  assert.ok(
    completed.some((entry) => entry.route === '/v1/merchant' && entry.status === 200),
    'merchant requests are logged',
  );
  assert.ok(
    completed.every((entry) => typeof entry.request_id === 'string' && entry.request_id.startsWith('req_')),
    'log lines carry request_id',
  );
  const canary = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'canary');
  assert.ok(canary, 'the canary line was captured');
  assert.equal(canary.client_secret, '[redacted]');
  assert.equal(canary.nested.access_token, '[redacted]');
  assert.equal(canary.headers.authorization, '[redacted]');

  const secrets = [m.clientSecret, rotated.value.client_secret, ...tokens];
  const hits = secrets.flatMap(forms).filter((needle) => output.includes(needle));
  assert.equal(hits.length, 0, `secrets or tokens found in the logs: ${hits.length}`);
  const basicHeaders = [basic(m.clientId, m.clientSecret, true), basic(m.clientId, m.clientSecret, false)].map((h) =>
    h.authorization.slice(6),
  );
  assert.equal(basicHeaders.filter((needle) => output.includes(needle)).length, 0, 'no Basic credentials in the logs');
});
