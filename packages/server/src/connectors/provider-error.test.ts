import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BODY_EXCERPT_CHARS, bodyExcerpt, ProviderHttpError } from './provider-error.ts';

test('the message names the provider, the call and the status, and nothing the provider sent', () => {
  const error = new ProviderHttpError({ provider: 'acquirer', operation: 'capture', status: 502, body: '{"error":"upstream down"}' });
  assert.equal(error.message, 'acquirer: capture answered 502');
  assert.equal(error.name, 'ProviderHttpError');
  assert.deepEqual([error.provider, error.operation, error.status], ['acquirer', 'capture', 502]);
  assert.equal(error.bodyExcerpt, '{"error":"upstream down"}');
  assert.ok(error instanceof Error);

  const problem = new ProviderHttpError({
    provider: 'mtn',
    operation: 'collection token',
    status: 200,
    problem: 'answer has no access_token',
  });
  assert.equal(problem.message, 'mtn: collection token answer has no access_token');
  assert.equal(problem.bodyExcerpt, '');
});

test('the excerpt never keeps a secret: those Purse sent, named fields, Authorization values, opaque runs', () => {
  const sent = 'consumer-secret-value';
  const cases: [string, string, string[]][] = [
    ['a secret Purse sent, echoed anywhere', `bad request for ${sent}!`, [sent]],
    ['a JSON field named as a secret', '{"access_token":"abc","error":"x"}', []],
    ['a JSON string with escaped quotes', '{"client_secret":"a\\"b\\"c","error":"x"}', []],
    ['a query-string field', 'url?api_key=s3cr3t&x=1', []],
    ['a Daraja password field', '{"Password":"MTc0Mzc5YmZiMjc5","Amount":1}', []],
    ['a Bearer value', 'Authorization: Bearer eyJhbGciOi.payload.sig', []],
    ['a Basic value', 'got Basic dXNlcjpwYXNz in the header', []],
    ['an opaque run no name announced', 'callback ?t=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg was rejected', []],
  ];
  for (const [what, body, secrets] of cases) {
    const excerpt = bodyExcerpt(body, secrets);
    assert.match(excerpt, /\[redacted\]/, what);
    for (const leak of [sent, 'abc', 'a\\"b', 's3cr3t', 'MTc0Mzc5', 'eyJhbGciOi', 'payload.sig', 'dXNlcjpwYXNz', 'Zm9vYmFy']) {
      assert.ok(!excerpt.includes(leak), `${what}: ${excerpt}`);
    }
  }
});

test('the excerpt keeps what tells one refusal from another, in one line, cut short', () => {
  assert.equal(
    bodyExcerpt('{"code":"RESOURCE_ALREADY_EXIST",\n  "message":"Duplicated reference id"}'),
    '{"code":"RESOURCE_ALREADY_EXIST", "message":"Duplicated reference id"}',
  );
  const long = bodyExcerpt('word '.repeat(100));
  assert.equal(long.length, BODY_EXCERPT_CHARS + 1);
  assert.ok(long.endsWith('…'));
  // Masked before it is cut: a secret straddling the cut leaves no part of itself.
  const secret = 'zzzzzzzzzz';
  const straddling = bodyExcerpt(`${'a '.repeat(97)}${secret}`, [secret]);
  assert.ok(!straddling.includes('zzz'), straddling);
});

test('of(): reads the answer for the excerpt, and an unreadable body still gives the status', async () => {
  const read = await ProviderHttpError.of(new Response('{"errorCode":"500.001.1001"}', { status: 500 }), {
    provider: 'mpesa',
    operation: 'b2c',
  });
  assert.equal(read.message, 'mpesa: b2c answered 500');
  assert.equal(read.bodyExcerpt, '{"errorCode":"500.001.1001"}');

  const broken = new ReadableStream({ pull: (controller) => controller.error(new Error('connection reset')) });
  const unread = await ProviderHttpError.of(new Response(broken, { status: 503 }), { provider: 'mtn', operation: 'transfer' });
  assert.deepEqual([unread.status, unread.bodyExcerpt], [503, '']);
});
