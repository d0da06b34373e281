// POST /oauth/token: every token-endpoint case of docs/api.md §2, §12.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { buildTestApp, createTestMerchant, manualClock, type TestApp, type TestMerchant } from '../helpers/app.ts';
import {
  assertApiError,
  assertOAuthError,
  assertTokenIssued,
  basic,
  countTokens,
  getMerchant,
  grant,
  type Reply,
  tokenForm,
  tokenJson,
} from './support.ts';

let app: TestApp;

before(async () => {
  app = await buildTestApp(null);
});

after(async () => {
  await app.close();
  await app.deps.close();
});

async function merchant(name = 'Token test'): Promise<TestMerchant> {
  return createTestMerchant(app, name);
}

/** The token opens GET /v1/merchant for its own merchant. */
async function assertTokenWorks(token: string, merchantId: string): Promise<void> {
  const response = await getMerchant(app, { authorization: `Bearer ${token}` });
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.json().id, merchantId);
}

describe('token issued', () => {
  test('the seed JSON exchange: 200, Bearer, integer expires_in, no-store, usable token', async () => {
    const m = await merchant();
    const response = await tokenJson(app, grant(m.clientId, m.clientSecret));
    const token = assertTokenIssued(response);
    await assertTokenWorks(token, m.merchantId);
  });

  test('JSON with a charset parameter', async () => {
    const m = await merchant();
    const response = await tokenJson(app, grant(m.clientId, m.clientSecret), { 'content-type': 'application/json; charset=utf-8' });
    await assertTokenWorks(assertTokenIssued(response), m.merchantId);
  });

  test('the same fields form-encoded', async () => {
    const m = await merchant();
    const response = await tokenForm(app, grant(m.clientId, m.clientSecret));
    await assertTokenWorks(assertTokenIssued(response), m.merchantId);
  });

  test('form-encoded with charset=UTF-8 and the fields in another order', async () => {
    const m = await merchant();
    const form = `client_secret=${encodeURIComponent(m.clientSecret)}&client_id=${encodeURIComponent(m.clientId)}&grant_type=client_credentials`;
    const response = await tokenForm(app, form, { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' });
    await assertTokenWorks(assertTokenIssued(response), m.merchantId);
  });

  test('HTTP Basic with form-encoded id and secret (RFC 6749 §2.3.1), form body', async () => {
    const m = await merchant();
    const header = basic(m.clientId, m.clientSecret, true);
    // The strict encoding escapes '_' and '-', so the header differs from the raw one.
    assert.notEqual(header.authorization, basic(m.clientId, m.clientSecret, false).authorization);
    const response = await tokenForm(app, { grant_type: 'client_credentials' }, header);
    await assertTokenWorks(assertTokenIssued(response), m.merchantId);
  });

  test('HTTP Basic with form-encoded id and secret, JSON body', async () => {
    const m = await merchant();
    const response = await tokenJson(app, { grant_type: 'client_credentials' }, basic(m.clientId, m.clientSecret, true));
    await assertTokenWorks(assertTokenIssued(response), m.merchantId);
  });

  test('HTTP Basic with the raw id and secret (curl -u), lower-case scheme', async () => {
    const m = await merchant();
    const raw = basic(m.clientId, m.clientSecret, false).authorization.replace(/^Basic/, 'basic');
    const response = await tokenForm(app, { grant_type: 'client_credentials' }, { authorization: raw });
    await assertTokenWorks(assertTokenIssued(response), m.merchantId);
  });

  test('Basic with empty client_id / client_secret body fields: sent without a value means omitted (RFC 6749 §3.1)', async () => {
    const m = await merchant();
    const header = basic(m.clientId, m.clientSecret);
    await assertTokenWorks(
      assertTokenIssued(await tokenForm(app, 'grant_type=client_credentials&client_id=&client_secret=', header)),
      m.merchantId,
    );
  });

  test('unknown extra fields are ignored (RFC 6749 §3.1): JSON and form', async () => {
    const m = await merchant();
    const json = await tokenJson(app, {
      ...grant(m.clientId, m.clientSecret),
      scope: 'payments',
      audience: 'x',
      extra: { nested: [1, 2] },
    });
    await assertTokenWorks(assertTokenIssued(json), m.merchantId);
    const form = await tokenForm(app, { ...grant(m.clientId, m.clientSecret), scope: 'payments', foo: 'bar' });
    await assertTokenWorks(assertTokenIssued(form), m.merchantId);
  });

  test('constructor (JSON) and __proto__ / constructor (form) fields are ignored like any unknown field', async () => {
    const m = await merchant();
    const json = `{"constructor":{"prototype":{"x":1}},${JSON.stringify(grant(m.clientId, m.clientSecret)).slice(1)}`;
    await assertTokenWorks(assertTokenIssued(await tokenJson(app, json)), m.merchantId);
    const form = `__proto__=x&constructor=y&__proto__%5Bclient_id%5D=z&${new URLSearchParams(grant(m.clientId, m.clientSecret)).toString()}`;
    await assertTokenWorks(assertTokenIssued(await tokenForm(app, form)), m.merchantId);
  });

  test('several tokens of one client are valid at once; issuing one revokes none', async () => {
    const m = await merchant();
    const tokens = [m.token];
    for (let i = 0; i < 4; i++) tokens.push(assertTokenIssued(await tokenJson(app, grant(m.clientId, m.clientSecret))));
    tokens.push(assertTokenIssued(await tokenForm(app, grant(m.clientId, m.clientSecret))));
    tokens.push(assertTokenIssued(await tokenForm(app, { grant_type: 'client_credentials' }, basic(m.clientId, m.clientSecret))));
    assert.equal(new Set(tokens).size, tokens.length, 'every token is distinct');
    for (const token of tokens) await assertTokenWorks(token, m.merchantId);
  });

  test('a token carries no client secret and no merchant id', async () => {
    const m = await merchant();
    const token = assertTokenIssued(await tokenJson(app, grant(m.clientId, m.clientSecret)));
    for (const needle of [m.clientSecret, m.clientId, m.merchantId]) assert.ok(!token.includes(needle));
    assert.ok(
      !Buffer.from(token.replace(/^[a-z]+_/, ''), 'base64url')
        .toString('latin1')
        .includes(m.merchantId),
    );
  });
});

describe('invalid_request', () => {
  let m: TestMerchant;
  let stored = 0;
  before(async () => {
    m = await merchant('invalid_request');
  });
  // Every refusal below stores nothing.
  beforeEach(async () => {
    stored = await countTokens(app, m.merchantId);
  });
  afterEach(async () => {
    assert.equal(await countTokens(app, m.merchantId), stored, 'a refused request stored a token');
  });

  test('empty body with Content-Type: application/json', async () => {
    assertOAuthError(await tokenJson(app, ''), 400, 'invalid_request');
  });

  test('empty body without a Content-Type', async () => {
    const response = await app.inject({ method: 'POST', url: '/oauth/token', headers: { accept: 'application/json' } });
    assertOAuthError(response, 400, 'invalid_request');
  });

  test('empty form body', async () => {
    assertOAuthError(await tokenForm(app, ''), 400, 'invalid_request');
  });

  for (const [name, text] of [
    ['truncated object', '{"grant_type":"client_credentials","client_id":'],
    ['single quotes', "{'grant_type':'client_credentials'}"],
    ['trailing comma', '{"grant_type":"client_credentials",}'],
    ['bare word', 'client_credentials'],
    ['whitespace only', '   \n'],
  ] as const) {
    test(`malformed JSON: ${name}`, async () => {
      assertOAuthError(await tokenJson(app, text), 400, 'invalid_request');
    });
  }

  for (const [name, text] of [
    ['array', '[]'],
    ['array of the object', JSON.stringify([{ grant_type: 'client_credentials' }])],
    ['null', 'null'],
    ['string', '"client_credentials"'],
    ['number', '42'],
    ['boolean', 'true'],
  ] as const) {
    test(`JSON that is not an object: ${name}`, async () => {
      assertOAuthError(await tokenJson(app, text), 400, 'invalid_request');
    });
  }

  for (const contentType of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/octet-stream']) {
    test(`wrong media type ${contentType}, even with a valid JSON body`, async () => {
      const response = await tokenJson(app, grant(m.clientId, m.clientSecret), { 'content-type': contentType });
      assertOAuthError(response, 400, 'invalid_request');
    });
  }

  for (const field of ['grant_type', 'client_id', 'client_secret'] as const) {
    test(`missing ${field}: JSON and form`, async () => {
      const fields: Record<string, string> = grant(m.clientId, m.clientSecret);
      delete fields[field];
      assertOAuthError(await tokenJson(app, fields), 400, 'invalid_request');
      assertOAuthError(await tokenForm(app, fields), 400, 'invalid_request');
    });

    test(`empty ${field} counts as missing (RFC 6749 §3.1): JSON and form`, async () => {
      const fields = { ...grant(m.clientId, m.clientSecret), [field]: '' };
      assertOAuthError(await tokenJson(app, fields), 400, 'invalid_request');
      assertOAuthError(await tokenForm(app, fields), 400, 'invalid_request');
    });

    for (const [kind, value] of [
      ['number', 12345],
      ['null', null],
      ['array', ['client_credentials']],
      ['object', { value: 'client_credentials' }],
      ['boolean', true],
    ] as const) {
      test(`${field} as ${kind} → invalid_request, never coerced`, async () => {
        const fields: Record<string, unknown> = { ...grant(m.clientId, m.clientSecret) };
        // An array or object holding the right value must not pass either.
        fields[field] = kind === 'array' ? [fields[field]] : kind === 'object' ? { value: fields[field] } : value;
        assertOAuthError(await tokenJson(app, fields), 400, 'invalid_request');
      });
    }

    test(`${field} repeated in a form body`, async () => {
      const fields = grant(m.clientId, m.clientSecret);
      const form = `${new URLSearchParams(fields).toString()}&${field}=${encodeURIComponent(fields[field]!)}`;
      assertOAuthError(await tokenForm(app, form), 400, 'invalid_request');
    });
  }

  test('a JSON "__proto__" key is refused (json-body.ts refuses it anywhere), and credentials hidden in it are never read', async () => {
    const inner = JSON.stringify({ client_id: m.clientId, client_secret: m.clientSecret });
    assertOAuthError(await tokenJson(app, `{"grant_type":"client_credentials","__proto__":${inner}}`), 400, 'invalid_request');
    const withCredentials = `{"__proto__":{"admin":true},${JSON.stringify(grant(m.clientId, m.clientSecret)).slice(1)}`;
    assertOAuthError(await tokenJson(app, withCredentials), 400, 'invalid_request');
  });

  test('control characters in a field: JSON \\u0000, form %00 and Basic %00 are refused, never a 500', async () => {
    const json = await tokenJson(app, `{"grant_type":"client_credentials","client_id":"${m.clientId}\\u0000","client_secret":"x"}`);
    assertOAuthError(json, 400, 'invalid_request');
    const form = await tokenForm(app, `grant_type=client_credentials&client_id=${m.clientId}%00&client_secret=x`);
    assertOAuthError(form, 400, 'invalid_request');
    const formSecret = await tokenForm(app, `grant_type=client_credentials&client_id=${m.clientId}&client_secret=a%00b`);
    assertOAuthError(formSecret, 400, 'invalid_request');
    const header = { authorization: `Basic ${Buffer.from(`${m.clientId}%00:secret`).toString('base64')}` };
    assertOAuthError(await tokenForm(app, { grant_type: 'client_credentials' }, header), 400, 'invalid_request');
    const rawNul = { authorization: `Basic ${Buffer.from(`${m.clientId}\u0000:secret`).toString('base64')}` };
    assertOAuthError(await tokenForm(app, { grant_type: 'client_credentials' }, rawNul), 400, 'invalid_request');
  });

  for (const [name, authorization] of [
    ['Basic without credentials', 'Basic'],
    ['Basic with a value that is not base64 of id:secret', `Basic ${Buffer.from('no-colon-here').toString('base64')}`],
    ['Basic with invalid percent-encoding', `Basic ${Buffer.from('cli_%ZZ:secret').toString('base64')}`],
    ['Basic with two tokens', 'Basic abc def'],
    ['a Bearer header', 'Bearer at_abc'],
  ] as const) {
    test(`malformed client authentication header: ${name}`, async () => {
      const response = await tokenForm(app, { grant_type: 'client_credentials' }, { authorization });
      assertOAuthError(response, 400, 'invalid_request');
      assert.equal(response.headers['www-authenticate'], undefined);
    });
  }

  test('credentials in both the body and a Basic header → 400 invalid_request, even when both are right', async () => {
    const header = basic(m.clientId, m.clientSecret);
    assertOAuthError(await tokenJson(app, grant(m.clientId, m.clientSecret), header), 400, 'invalid_request');
    assertOAuthError(await tokenForm(app, grant(m.clientId, m.clientSecret), header), 400, 'invalid_request');
    assertOAuthError(
      await tokenForm(app, { grant_type: 'client_credentials', client_secret: m.clientSecret }, header),
      400,
      'invalid_request',
    );
    assertOAuthError(await tokenJson(app, { grant_type: 'client_credentials', client_id: m.clientId }, header), 400, 'invalid_request');
    assertOAuthError(await tokenJson(app, { grant_type: 'client_credentials', client_id: null }, header), 400, 'invalid_request');
  });
});

describe('unsupported_grant_type', () => {
  for (const grantType of [
    'authorization_code',
    'password',
    'refresh_token',
    'urn:ietf:params:oauth:grant-type:jwt-bearer',
    'CLIENT_CREDENTIALS',
    'client_credentials ',
  ]) {
    test(`grant_type ${JSON.stringify(grantType)} → 400 unsupported_grant_type (JSON, form, Basic)`, async () => {
      const m = await merchant('grant types');
      const stored = await countTokens(app, m.merchantId);
      const fields = { ...grant(m.clientId, m.clientSecret), grant_type: grantType };
      assertOAuthError(await tokenJson(app, fields), 400, 'unsupported_grant_type');
      assertOAuthError(await tokenForm(app, fields), 400, 'unsupported_grant_type');
      assertOAuthError(await tokenForm(app, { grant_type: grantType }, basic(m.clientId, m.clientSecret)), 400, 'unsupported_grant_type');
      assert.equal(await countTokens(app, m.merchantId), stored);
    });
  }
});

describe('invalid_client', () => {
  function wrongSecret(secret: string): string {
    // Same length and alphabet, last characters changed: a near miss.
    const tail = secret.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA';
    return secret.slice(0, -4) + tail;
  }

  test('unknown client and wrong secret: 401 invalid_client with byte-identical bodies (JSON and form)', async () => {
    const m = await merchant();
    const stored = await countTokens(app, m.merchantId);
    const unknownJson = await tokenJson(app, grant('cli_01jd6x8v1ffq8v2k3m4n5p6q7r', m.clientSecret));
    const wrongJson = await tokenJson(app, grant(m.clientId, wrongSecret(m.clientSecret)));
    const otherShape = await tokenJson(app, grant('nobody', 'nothing'));
    const unknownForm = await tokenForm(app, grant('cli_01jd6x8v1ffq8v2k3m4n5p6q7r', m.clientSecret));
    const wrongForm = await tokenForm(app, grant(m.clientId, 'sk_test_short'));
    for (const response of [unknownJson, wrongJson, otherShape, unknownForm, wrongForm]) {
      assertOAuthError(response, 401, 'invalid_client');
      assert.equal(response.headers['www-authenticate'], undefined, 'no Basic challenge when Basic was not used');
      assert.equal(response.body, unknownJson.body);
      assert.equal(response.headers['content-length'], unknownJson.headers['content-length']);
    }
    // What to check, without saying which of the two was wrong.
    assert.match(unknownJson.json().error_description, /client_id is unknown or the client_secret is not its current one/);
    assert.equal(await countTokens(app, m.merchantId), stored);
  });

  test('with Basic: 401 invalid_client + WWW-Authenticate: Basic realm="…", identical for unknown client and wrong secret', async () => {
    const m = await merchant();
    const bodyOnly = await tokenJson(app, grant(m.clientId, wrongSecret(m.clientSecret)));
    const unknown = await tokenForm(app, { grant_type: 'client_credentials' }, basic('cli_01jd6x8v1ffq8v2k3m4n5p6q7r', m.clientSecret));
    const wrong = await tokenForm(app, { grant_type: 'client_credentials' }, basic(m.clientId, wrongSecret(m.clientSecret)));
    const emptySecret = await tokenJson(app, { grant_type: 'client_credentials' }, basic(m.clientId, ''));
    for (const response of [unknown, wrong, emptySecret]) {
      assertOAuthError(response, 401, 'invalid_client');
      assert.match(String(response.headers['www-authenticate']), /^Basic realm="[^"]+"$/);
      assert.equal(response.headers['www-authenticate'], unknown.headers['www-authenticate']);
      assert.equal(response.body, bodyOnly.body);
    }
  });

  test('a disabled merchant: the right secret gets the same 401; re-enabled, it works again', async () => {
    const m = await merchant();
    const reference = await tokenJson(app, grant('cli_01jd6x8v1ffq8v2k3m4n5p6q7r', 'sk_test_nothing'));
    const disabled = await app.deps.services.merchants.setStatus(m.merchantId, 'disabled');
    assert.ok(disabled.ok);
    const stored = await countTokens(app, m.merchantId);
    const json = await tokenJson(app, grant(m.clientId, m.clientSecret));
    const form = await tokenForm(app, grant(m.clientId, m.clientSecret));
    const viaBasic = await tokenForm(app, { grant_type: 'client_credentials' }, basic(m.clientId, m.clientSecret));
    for (const response of [json, form, viaBasic]) {
      assertOAuthError(response, 401, 'invalid_client');
      assert.equal(response.body, reference.body);
    }
    assert.match(String(viaBasic.headers['www-authenticate']), /^Basic realm="[^"]+"$/);
    assert.equal(await countTokens(app, m.merchantId), stored, 'a disabled merchant gets no token stored');
    assert.ok((await app.deps.services.merchants.setStatus(m.merchantId, 'active')).ok);
    await assertTokenWorks(assertTokenIssued(await tokenJson(app, grant(m.clientId, m.clientSecret))), m.merchantId);
  });

  test('after rotateSecret the old secret is invalid_client and the new one works', async () => {
    const m = await merchant();
    const reference = await tokenJson(app, grant('cli_01jd6x8v1ffq8v2k3m4n5p6q7r', 'sk_test_nothing'));
    const rotated = await app.deps.services.merchants.rotateSecret(m.merchantId);
    assert.ok(rotated.ok);
    const old = await tokenJson(app, grant(m.clientId, m.clientSecret));
    assertOAuthError(old, 401, 'invalid_client');
    assert.equal(old.body, reference.body);
    await assertTokenWorks(assertTokenIssued(await tokenJson(app, grant(m.clientId, rotated.value.client_secret))), m.merchantId);
  });

  test("another merchant's secret does not open this client", async () => {
    const a = await merchant('A');
    const b = await merchant('B');
    assertOAuthError(await tokenJson(app, grant(a.clientId, b.clientSecret)), 401, 'invalid_client');
    assertOAuthError(await tokenForm(app, { grant_type: 'client_credentials' }, basic(b.clientId, a.clientSecret)), 401, 'invalid_client');
  });
});

describe('method and size', () => {
  for (const method of ['GET', 'PUT', 'DELETE', 'PATCH'] as const) {
    test(`${method} /oauth/token → 405 method_not_allowed with Allow: POST`, async () => {
      const response = await app.inject({ method, url: '/oauth/token' });
      assertApiError(response, 405, 'invalid_request_error', 'method_not_allowed');
      assert.equal(response.headers.allow, 'POST');
    });
  }

  test('GET with credentials in the query string is still 405 and issues nothing', async () => {
    const m = await merchant();
    const query = new URLSearchParams(grant(m.clientId, m.clientSecret)).toString();
    const response = await app.inject({ method: 'GET', url: `/oauth/token?${query}` });
    assertApiError(response, 405, 'invalid_request_error', 'method_not_allowed');
    assert.ok(!response.body.includes('access_token'));
    assert.ok(!response.body.includes(m.clientSecret));
  });

  /** A JSON body of exactly `size` bytes: the grant plus padding in an ignored field. */
  function paddedJson(m: TestMerchant, size: number): string {
    const base = JSON.stringify({ ...grant(m.clientId, m.clientSecret), pad: '' });
    const text = base.replace('"pad":""', `"pad":"${'x'.repeat(size - base.length)}"`);
    assert.equal(Buffer.byteLength(text), size);
    return text;
  }

  test('a body of exactly 4 KiB is accepted', async () => {
    const m = await merchant();
    assertTokenIssued(await tokenJson(app, paddedJson(m, 4096)));
    const form = `${new URLSearchParams(grant(m.clientId, m.clientSecret)).toString()}&pad=`;
    assertTokenIssued(await tokenForm(app, form + 'x'.repeat(4096 - form.length)));
  });

  test('a body over 4 KiB → 413 (JSON and form), even though /v1 takes 16 KiB', async () => {
    const m = await merchant();
    for (const size of [4097, 8 * 1024, 15 * 1024]) {
      const response = await tokenJson(app, paddedJson(m, size));
      assertOAuthError(response, 413, 'invalid_request');
    }
    const form = `${new URLSearchParams(grant(m.clientId, m.clientSecret)).toString()}&pad=`;
    assertOAuthError(await tokenForm(app, form + 'x'.repeat(4097 - form.length)), 413, 'invalid_request');
    assertOAuthError(await tokenForm(app, form + 'x'.repeat(10_000)), 413, 'invalid_request');
  });
});

describe('throttling repeated failures', () => {
  test('10 failures → 429 too_many_requests + Retry-After; the right secret is refused too until Retry-After has passed', async (t) => {
    const clock = manualClock();
    const own = await buildTestApp(t, { clock });
    const m = await createTestMerchant(own, 'throttled');
    const other = await createTestMerchant(own, 'bystander');
    for (let i = 0; i < 10; i++) {
      // Failures through every channel count for the same client.
      const response =
        i % 3 === 0
          ? await tokenJson(own, grant(m.clientId, `sk_test_wrong${i}`))
          : i % 3 === 1
            ? await tokenForm(own, grant(m.clientId, `sk_test_wrong${i}`))
            : await tokenForm(own, { grant_type: 'client_credentials' }, basic(m.clientId, `sk_test_wrong${i}`));
      assertOAuthError(response, 401, 'invalid_client');
      clock.advance(1000);
    }
    const throttled = await tokenJson(own, grant(m.clientId, 'sk_test_wrong'));
    assertOAuthError(throttled, 429, 'too_many_requests');
    const retryAfter = String(throttled.headers['retry-after']);
    assert.match(retryAfter, /^[1-9][0-9]*$/);
    assert.ok(Number(retryAfter) <= 60, `Retry-After ${retryAfter} s is within the one-minute window`);
    // A guess that happens to be right is not confirmed while throttled.
    assertOAuthError(await tokenJson(own, grant(m.clientId, m.clientSecret)), 429, 'too_many_requests');
    assertOAuthError(
      await tokenForm(own, { grant_type: 'client_credentials' }, basic(m.clientId, m.clientSecret)),
      429,
      'too_many_requests',
    );
    // Other clients are not affected.
    assertTokenIssued(await tokenJson(own, grant(other.clientId, other.clientSecret)));
    clock.advance(Number(retryAfter) * 1000);
    const token = assertTokenIssued(await tokenJson(own, grant(m.clientId, m.clientSecret)));
    const check = await getMerchant(own, { authorization: `Bearer ${token}` });
    assert.equal(check.statusCode, 200);
  });

  test('unknown client ids are throttled the same way (no way to tell them apart)', async (t) => {
    const own = await buildTestApp(t, { clock: manualClock() });
    const known = await createTestMerchant(own, 'known');
    const unknown = 'cli_01jd6x8v1ffq8v2k3m4n5p6q7r';
    for (const clientId of [known.clientId, unknown]) {
      for (let i = 0; i < 10; i++) assertOAuthError(await tokenJson(own, grant(clientId, 'sk_test_wrong')), 401, 'invalid_client');
    }
    const a = await tokenJson(own, grant(known.clientId, 'sk_test_wrong'));
    const b = await tokenJson(own, grant(unknown, 'sk_test_wrong'));
    assertOAuthError(a, 429, 'too_many_requests');
    assertOAuthError(b, 429, 'too_many_requests');
    assert.equal(a.body, b.body);
  });

  test('PURSE_TOKEN_FAILURE_LIMIT sets the limit', async (t) => {
    // A manual clock: the windows are aligned to the minute, and a real one may cross a boundary.
    const own = await buildTestApp(t, { clock: manualClock(), env: { PURSE_TOKEN_FAILURE_LIMIT: '3' } });
    const m = await createTestMerchant(own, 'limit 3');
    for (let i = 0; i < 3; i++) assertOAuthError(await tokenJson(own, grant(m.clientId, 'sk_test_wrong')), 401, 'invalid_client');
    assertOAuthError(await tokenJson(own, grant(m.clientId, 'sk_test_wrong')), 429, 'too_many_requests');
  });

  test('parallel guesses cannot get past the limit: exactly 10 are judged, the rest are 429', async (t) => {
    const own = await buildTestApp(t, { clock: manualClock() });
    const m = await createTestMerchant(own, 'parallel');
    const responses: Reply[] = await Promise.all(
      Array.from({ length: 40 }, (_, i) => tokenJson(own, grant(m.clientId, `sk_test_guess${i}`))),
    );
    const counts: Record<number, number> = {};
    for (const response of responses) counts[response.statusCode] = (counts[response.statusCode] ?? 0) + 1;
    assert.deepEqual(counts, { 401: 10, 429: 30 });
    for (const response of responses) {
      if (response.statusCode === 429) {
        assertOAuthError(response, 429, 'too_many_requests');
        assert.match(String(response.headers['retry-after']), /^[1-9][0-9]*$/);
      }
    }
    assertOAuthError(await tokenJson(own, grant(m.clientId, m.clientSecret)), 429, 'too_many_requests');
  });

  test('parallel requests with the right secret are never throttled', async (t) => {
    // A manual clock: the windows are aligned to the minute, and a real one may cross a boundary.
    const own = await buildTestApp(t, { clock: manualClock(), env: { PURSE_TOKEN_FAILURE_LIMIT: '3' } });
    const m = await createTestMerchant(own, 'parallel legit');
    const responses = await Promise.all(Array.from({ length: 12 }, () => tokenJson(own, grant(m.clientId, m.clientSecret))));
    const tokens = responses.map((response) => assertTokenIssued(response));
    assert.equal(new Set(tokens).size, 12);
  });
});
