// Shared assertions for the token-endpoint and Bearer tests (not a test file itself).
import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.ts';

/** What app.inject() resolves to, reduced to what the assertions read. */
export interface Reply {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  json(): any;
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' } as const;
export const FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' } as const;

/** The seed's request: a JSON body with the three fields, exactly as the interface shows it. */
export function tokenJson(app: TestApp, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { ...JSON_HEADERS, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function tokenForm(app: TestApp, form: string | Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> {
  return app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { ...FORM_HEADERS, ...headers },
    payload: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
  });
}

/** RFC 6749 §2.3.1 / Appendix B: each part form-encoded, every byte outside ALPHA / DIGIT / SP escaped. */
export function formEncodeStrict(value: string): string {
  return Array.from(Buffer.from(value, 'utf8'))
    .map((byte) => {
      const c = String.fromCharCode(byte);
      if (/[A-Za-z0-9]/.test(c)) return c;
      if (c === ' ') return '+';
      return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

/** An HTTP Basic header; `encode` false sends the raw id and secret (what curl -u does). */
export function basic(clientId: string, clientSecret: string, encode = true): { authorization: string } {
  const pair = encode ? `${formEncodeStrict(clientId)}:${formEncodeStrict(clientSecret)}` : `${clientId}:${clientSecret}`;
  return { authorization: `Basic ${Buffer.from(pair, 'utf8').toString('base64')}` };
}

export function grant(clientId: string, clientSecret: string): Record<string, string> {
  return { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
}

function assertCommonHeaders(response: Reply): void {
  assert.equal(response.headers['api-version'], '1.0.0', 'Api-Version on every response');
  assert.match(String(response.headers['request-id']), /^req_[0-9a-z]+$/, 'Request-Id on every response');
  assert.match(String(response.headers['content-type']), /^application\/json; charset=utf-8$/i);
}

/** A 200 token response: exact keys, Bearer, integer expires_in, no-store. Returns the token. */
export function assertTokenIssued(response: Reply, expiresIn = 3600): string {
  assert.equal(response.statusCode, 200, response.body);
  assertCommonHeaders(response);
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.equal(response.headers.pragma, 'no-cache');
  const body = response.json();
  assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'token_type']);
  assert.equal(body.token_type, 'Bearer');
  assert.ok(Number.isInteger(body.expires_in), `expires_in must be an integer, got ${JSON.stringify(body.expires_in)}`);
  assert.equal(body.expires_in, expiresIn);
  assert.equal(typeof body.access_token, 'string');
  // ≥ 256 random bits in base64url behind an optional readable prefix.
  assert.match(body.access_token, /^(?:[a-z]+_)?[A-Za-z0-9_-]{43,}$/);
  return body.access_token as string;
}

/** An RFC 6749 §5.2 error: exact status, exactly {error, error_description}, no-store. */
export function assertOAuthError(response: Reply, status: number, error: string): void {
  assert.equal(response.statusCode, status, response.body);
  assertCommonHeaders(response);
  assert.equal(response.headers['cache-control'], 'no-store');
  const body = response.json();
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description'], response.body);
  assert.equal(body.error, error, response.body);
  assert.equal(typeof body.error_description, 'string');
  assert.ok(body.error_description.length > 0);
  // RFC 6749 §5.2: error_description is printable ASCII without '"' and '\'.
  assert.match(body.error_description, /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/);
}

/** The docs/api.md §3 envelope: exact keys {type, code, message, request_id} (+ param when given), request_id = Request-Id. */
export function assertApiError(response: Reply, status: number, type: string, code: string): Record<string, string> {
  assert.equal(response.statusCode, status, response.body);
  assertCommonHeaders(response);
  const body = response.json();
  assert.deepEqual(Object.keys(body), ['error'], response.body);
  const error = body.error as Record<string, string>;
  assert.deepEqual(Object.keys(error).sort(), ['code', 'message', 'request_id', 'type'], response.body);
  assert.equal(error.type, type);
  assert.equal(error.code, code);
  assert.equal(typeof error.message, 'string');
  assert.ok(String(error.message).length > 0);
  assert.equal(error.request_id, response.headers['request-id']);
  return error;
}

/** 401 from a Bearer route; `challenge` is the exact WWW-Authenticate expected. */
export function assertBearerError(response: Reply, code: 'token_missing' | 'token_invalid' | 'token_expired'): void {
  assertApiError(response, 401, 'authentication_error', code);
  const challenge = String(response.headers['www-authenticate']);
  if (code === 'token_missing') {
    assert.equal(challenge, 'Bearer realm="payments"');
  } else {
    assert.match(challenge, /^Bearer realm="payments", *error="invalid_token"(?:, *error_description="[^"]*")?$/);
  }
}

export function getMerchant(app: TestApp, headers: Record<string, string> = {}, url = '/v1/merchant'): Promise<Reply> {
  return app.inject({ method: 'GET', url, headers });
}

/**
 * A merchant's rows in access_tokens: refusals must store nothing. Per merchant, because on
 * PostgreSQL the test files of one run share the database.
 */
export async function countTokens(app: TestApp, merchantId: string): Promise<number> {
  const row = await app.deps.db.db
    .selectFrom('access_tokens')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('merchant_id', '=', merchantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
