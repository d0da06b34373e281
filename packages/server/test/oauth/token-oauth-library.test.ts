// The token endpoint through a real OAuth 2.0 client library (oauth4webapi v3) over a real socket.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';

let app: TestApp;
let base: string;
let as: oauth.AuthorizationServer;
let m: TestMerchant;
const insecure = { [oauth.allowInsecureRequests]: true } as const;

before(async () => {
  app = await buildTestApp(null);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  base = address;
  assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
  as = { issuer: base, token_endpoint: `${base}/oauth/token` };
  m = await createTestMerchant(app, 'OAuth library');
});

after(async () => {
  await app.close();
  await app.deps.close();
});

async function readMerchant(accessToken: string): Promise<Response> {
  return oauth.protectedResourceRequest(
    accessToken,
    'GET',
    new URL(`${base}/v1/merchant`),
    new Headers({ accept: 'application/json' }),
    null,
    insecure,
  );
}

async function fetchToken(clientAuth: oauth.ClientAuth, clientId = m.clientId): Promise<oauth.TokenEndpointResponse> {
  const client: oauth.Client = { client_id: clientId };
  const response = await oauth.clientCredentialsGrantRequest(as, client, clientAuth, {}, insecure);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  assert.equal(response.headers.get('pragma'), 'no-cache');
  assert.equal(response.headers.get('api-version'), '1.0.0');
  return oauth.processClientCredentialsResponse(as, client, response);
}

describe('oauth4webapi', () => {
  for (const [name, auth] of [
    ['client_secret_basic', () => oauth.ClientSecretBasic(m.clientSecret)],
    ['client_secret_post', () => oauth.ClientSecretPost(m.clientSecret)],
  ] as const) {
    test(`${name}: the library gets a Bearer token that reads GET /v1/merchant`, async () => {
      const result = await fetchToken(auth());
      assert.equal(result.token_type, 'bearer'); // the library lower-cases it
      assert.equal(result.expires_in, 3600);
      assert.equal(typeof result.access_token, 'string');
      const response = await readMerchant(result.access_token);
      assert.equal(response.status, 200);
      const body = (await response.json()) as { id: string; client_id: string };
      assert.equal(body.id, m.merchantId);
      assert.equal(body.client_id, m.clientId);
    });
  }

  test('tokens from both methods are valid at the same time', async () => {
    const a = await fetchToken(oauth.ClientSecretBasic(m.clientSecret));
    const b = await fetchToken(oauth.ClientSecretPost(m.clientSecret));
    assert.notEqual(a.access_token, b.access_token);
    for (const token of [a.access_token, b.access_token]) assert.equal((await readMerchant(token)).status, 200);
  });

  test('client_secret_basic with a wrong secret: the library sees the Basic challenge and status 401', async () => {
    const client: oauth.Client = { client_id: m.clientId };
    const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(`${m.clientSecret}x`), {}, insecure);
    await assert.rejects(oauth.processClientCredentialsResponse(as, client, response), (error: unknown) => {
      assert.ok(error instanceof oauth.WWWAuthenticateChallengeError, String(error));
      assert.equal(error.status, 401);
      assert.equal(error.cause[0]?.scheme, 'basic');
      assert.equal(typeof error.cause[0]?.parameters.realm, 'string');
      return true;
    });
  });

  test('client_secret_post with a wrong secret: the library parses {"error":"invalid_client"}', async () => {
    const client: oauth.Client = { client_id: m.clientId };
    const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost(`${m.clientSecret}x`), {}, insecure);
    await assert.rejects(oauth.processClientCredentialsResponse(as, client, response), (error: unknown) => {
      assert.ok(error instanceof oauth.ResponseBodyError, String(error));
      assert.equal(error.status, 401);
      assert.equal(error.error, 'invalid_client');
      assert.equal(typeof error.error_description, 'string');
      return true;
    });
  });

  test('an unknown client through the library: invalid_client as well', async () => {
    const client: oauth.Client = { client_id: 'cli_01jd6x8v1ffq8v2k3m4n5p6q7r' };
    const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost(m.clientSecret), {}, insecure);
    await assert.rejects(oauth.processClientCredentialsResponse(as, client, response), (error: unknown) => {
      assert.ok(error instanceof oauth.ResponseBodyError);
      assert.equal(error.error, 'invalid_client');
      return true;
    });
  });

  test('another grant type through the library: unsupported_grant_type', async () => {
    const client: oauth.Client = { client_id: m.clientId };
    const response = await oauth.genericTokenEndpointRequest(
      as,
      client,
      oauth.ClientSecretPost(m.clientSecret),
      'password',
      { username: 'u', password: 'p' },
      insecure,
    );
    await assert.rejects(oauth.processGenericTokenEndpointResponse(as, client, response), (error: unknown) => {
      assert.ok(error instanceof oauth.ResponseBodyError);
      assert.equal(error.status, 400);
      assert.equal(error.error, 'unsupported_grant_type');
      return true;
    });
  });

  test('a forged token at the resource: the library sees Bearer error="invalid_token"', async () => {
    await assert.rejects(readMerchant(`at_${'A'.repeat(43)}`), (error: unknown) => {
      assert.ok(error instanceof oauth.WWWAuthenticateChallengeError, String(error));
      assert.equal(error.status, 401);
      assert.equal(error.cause[0]?.scheme, 'bearer');
      assert.equal(error.cause[0]?.parameters.realm, 'payments');
      assert.equal(error.cause[0]?.parameters.error, 'invalid_token');
      return true;
    });
  });
});

describe('plain HTTP clients over a real socket', () => {
  test('the seed exchange with fetch, then the token on GET /v1/merchant', async () => {
    const response = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: m.clientId, client_secret: m.clientSecret }),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.equal(response.headers.get('pragma'), 'no-cache');
    const body = (await response.json()) as { access_token: string; token_type: string; expires_in: number };
    assert.equal(body.token_type, 'Bearer');
    assert.ok(Number.isInteger(body.expires_in));
    const merchant = await fetch(`${base}/v1/merchant`, { headers: { authorization: `Bearer ${body.access_token}` } });
    assert.equal(merchant.status, 200);
    assert.equal(((await merchant.json()) as { id: string }).id, m.merchantId);
  });

  test('"Authorization: Bearer " with nothing after it, over the wire → 401 token_invalid', async () => {
    const response = await fetch(`${base}/v1/merchant`, { headers: { authorization: 'Bearer ' } });
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="payments", error="invalid_token"');
    const body = (await response.json()) as { error: { code: string; request_id: string } };
    assert.equal(body.error.code, 'token_invalid');
    assert.equal(body.error.request_id, response.headers.get('request-id'));
  });

  test('a body over 4 KiB sent chunked (no Content-Length) → 413', async () => {
    const big = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: m.clientId,
      client_secret: m.clientSecret,
      pad: 'x'.repeat(6000),
    });
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const response = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    assert.equal(response.status, 413);
    assert.equal(((await response.json()) as { error: string }).error, 'invalid_request');
  });
});
