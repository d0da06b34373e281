// A new developer's usual authentication mistakes: each answer keeps its contract code and says
// what to do instead, without repeating a secret (docs/api.md §3, "Common mistakes").
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { assertApiError, assertBearerError, assertOAuthError, basic, getMerchant, grant, type Reply, tokenForm } from './support.ts';

let app: TestApp;
let m: TestMerchant;
let base: string;

before(async () => {
  app = await buildTestApp(null);
  m = await createTestMerchant(app, 'Mistakes');
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});

after(async () => {
  await app.close();
  await app.deps.close();
});

const TO_TOKEN = /POST \/oauth\/token/;

/** The message of a 401 from a Bearer route, after the contract's checks. */
function bearerMessage(response: Reply): string {
  assertBearerError(response, 'token_invalid');
  return String(response.json().error.message);
}

describe('a Bearer route given something that is not an access token', () => {
  test('the client secret → token_invalid saying it is a client secret to exchange at POST /oauth/token, never echoed', async () => {
    const response = await getMerchant(app, { authorization: `Bearer ${m.clientSecret}` });
    const message = bearerMessage(response);
    assert.match(message, /client secret/);
    assert.match(message, TO_TOKEN);
    assert.match(message, /Authorization: Bearer <access_token>/);
    assert.ok(!response.body.includes(m.clientSecret), 'the secret is not in the answer');
    assert.ok(!response.body.includes(m.clientSecret.slice('sk_test_'.length, 20)), 'nor any part of it');
  });

  test('a live client secret (sk_live_…) gets the same advice', async () => {
    const secret = `sk_live_${'A'.repeat(43)}`;
    const response = await getMerchant(app, { authorization: `Bearer ${secret}` });
    assert.match(bearerMessage(response), /client secret.*POST \/oauth\/token/);
    assert.ok(!response.body.includes(secret));
  });

  test('the client id → token_invalid saying it is a client id', async () => {
    const message = bearerMessage(await getMerchant(app, { authorization: `Bearer ${m.clientId}` }));
    assert.match(message, /client id, not an access token/);
    assert.match(message, TO_TOKEN);
  });

  test('the same mistakes on a write route answer the same way, before the body is read', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: { authorization: `Bearer ${m.clientSecret}`, 'content-type': 'application/json' },
      payload: '{"amount":',
    });
    assert.match(bearerMessage(response), /client secret/);
  });

  test('an ordinary invalid token keeps the generic message (nothing about the account is told)', async () => {
    const message = bearerMessage(await getMerchant(app, { authorization: `Bearer at_${'x'.repeat(43)}` }));
    assert.equal(message, 'The access token is invalid or has been revoked; get one at POST /oauth/token.');
  });

  const headerCases: [string, () => string, RegExp][] = [
    [
      'Basic client credentials',
      () => basic(m.clientId, m.clientSecret).authorization,
      /Basic client credentials are for POST \/oauth\/token only/,
    ],
    ['the token without the word Bearer', () => m.token, /the word Bearer is missing/i],
    ['Bearer with no token', () => 'Bearer ', /no token after Bearer/],
    ['Bearer undefined', () => 'Bearer undefined', /"undefined": the variable that should hold it was not set/],
    ['Bearer null', () => 'Bearer null', /"null": the variable/],
    ['Bearer twice', () => `Bearer Bearer ${m.token}`, /Bearer twice/],
    ['a quoted token', () => `Bearer "${m.token}"`, /must not be in quotes/],
    ['no space after Bearer', () => `Bearer${m.token}`, /space between Bearer and the token/],
  ];
  for (const [name, header, expected] of headerCases) {
    test(`${name} → token_invalid with what to do`, async () => {
      const response = await getMerchant(app, { authorization: header() });
      assert.match(bearerMessage(response), expected);
      assert.ok(!response.body.includes(m.token) && !response.body.includes(m.clientSecret), 'no credential echoed');
    });
  }

  test('no Authorization header → token_missing naming where a token comes from', async () => {
    const response = await getMerchant(app);
    assertBearerError(response, 'token_missing');
    assert.match(response.json().error.message, TO_TOKEN);
  });
});

/** A raw POST over HTTP: exactly the headers given (no Content-Type unless named). */
function rawPost(path: string, body: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () =>
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers as Reply['headers'], body: text, json: () => JSON.parse(text) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the token endpoint given a body it cannot read', () => {
  const json = () => JSON.stringify(grant(m.clientId, m.clientSecret));

  test('JSON without a Content-Type header → invalid_request naming the missing header, not "grant_type is required"', async () => {
    const response = await rawPost('/oauth/token', json());
    assertOAuthError(response, 400, 'invalid_request');
    const description = response.json().error_description;
    assert.match(description, /no Content-Type header/);
    assert.match(description, /Content-Type: application\/json or application\/x-www-form-urlencoded/);
    assert.doesNotMatch(description, /grant_type/);
    assert.ok(!response.body.includes(m.clientSecret));
  });

  test('JSON sent as a form (curl -d without -H) → says the body is JSON sent as a form and which header to send', async () => {
    const response = await tokenForm(app, json());
    assertOAuthError(response, 400, 'invalid_request');
    const description = response.json().error_description;
    assert.match(description, /looks like JSON but was sent as application\/x-www-form-urlencoded/);
    assert.match(description, /send Content-Type: application\/json/);
    assert.ok(!response.body.includes(m.clientSecret));
  });

  test('a real form without grant_type still hears that grant_type is required', async () => {
    const response = await tokenForm(app, { client_id: m.clientId, client_secret: m.clientSecret });
    assertOAuthError(response, 400, 'invalid_request');
    assert.match(response.json().error_description, /^grant_type is required/);
  });

  test("fetch's default for a string body (text/plain) → names text/plain and the types accepted", async () => {
    const response = await fetch(new URL('/oauth/token', base), { method: 'POST', body: json() });
    const reply: Reply = {
      statusCode: response.status,
      headers: Object.fromEntries(response.headers),
      body: await response.text(),
      json: () => null,
    };
    reply.json = () => JSON.parse(reply.body);
    assertOAuthError(reply, 400, 'invalid_request');
    assert.match(
      reply.json().error_description,
      /Content-Type text\/plain .* is not accepted here: send Content-Type: application\/json or/,
    );
  });

  test('a /v1 body without Content-Type → 415 naming the header; a form → 415 naming what curl -d sends', async () => {
    const none = await rawPost('/v1/wallets', '{"currency":"KES"}', m.auth);
    assert.match(
      String(assertApiError(none, 415, 'invalid_request_error', 'unsupported_media_type').message),
      /no Content-Type header: send Content-Type: application\/json\.$/,
    );
    const form = await rawPost('/v1/wallets', '{"currency":"KES"}', { ...m.auth, 'content-type': 'application/x-www-form-urlencoded' });
    const message = String(assertApiError(form, 415, 'invalid_request_error', 'unsupported_media_type').message);
    assert.match(message, /application\/x-www-form-urlencoded \(what curl -d sends/);
    assert.match(message, /send Content-Type: application\/json\.$/);
  });
});
