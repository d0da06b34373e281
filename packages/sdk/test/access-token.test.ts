// The second way to authenticate: `accessToken`, a function the caller gives (the dashboard's
// session, a token broker). When it is called, what happens on a 401, what it may throw or return,
// and the options refused when the two forms are mixed or half given.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Purse, PurseError } from '../src/index.ts';
import { apiError, type Reply, startFakePurse } from './fake-purse.ts';

/** A token function that hands out tok_a1, tok_a2 … and counts its calls. */
function tokens() {
  const source = {
    calls: 0,
    accessToken: async () => {
      source.calls += 1;
      return `tok_a${source.calls}`;
    },
  };
  return source;
}

describe('accessToken', () => {
  test('called once for concurrent calls; its token is sent as Bearer; /oauth/token is never asked', async (t) => {
    const fake = await startFakePurse((req) => (req.path === '/v1/balance' ? { status: 200, json: { object: 'balance' } } : undefined));
    t.after(() => fake.close());
    const source = tokens();
    const purse = new Purse({ baseUrl: fake.base, accessToken: source.accessToken });
    await Promise.all([purse.balance.retrieve(), purse.balance.retrieve(), purse.balance.retrieve()]);
    await purse.balance.retrieve();
    assert.equal(source.calls, 1, 'kept until a 401');
    assert.equal(fake.tokens().length, 0);
    assert.deepEqual(
      fake.calls().map((c) => c.headers.authorization),
      Array(4).fill('Bearer tok_a1'),
    );
  });

  test('a 401 asks the function once more and repeats the call; a second 401 is the error', async (t) => {
    const answers: Reply[] = [
      apiError(401, 'token_expired'),
      { status: 200, json: { id: 'mer_1' } },
      apiError(401, 'token_invalid'),
      apiError(401, 'token_invalid'),
    ];
    const fake = await startFakePurse((req) => (req.path === '/v1/merchant' ? answers.shift() : undefined));
    t.after(() => fake.close());
    const source = tokens();
    const purse = new Purse({ baseUrl: fake.base, accessToken: source.accessToken, maxRetries: 0 });
    assert.equal((await purse.merchant.retrieve()).id, 'mer_1');
    assert.deepEqual(
      fake.calls().map((c) => c.headers.authorization),
      ['Bearer tok_a1', 'Bearer tok_a2'],
    );
    await assert.rejects(
      purse.merchant.retrieve(),
      (e: unknown) => e instanceof PurseError && e.status === 401 && e.code === 'token_invalid',
    );
    assert.equal(source.calls, 3, 'one new token per 401, one renewal per call, not a loop');
    assert.equal(fake.tokens().length, 0);
  });

  test('what the function throws reaches the caller unchanged, and nothing is sent', async (t) => {
    const fake = await startFakePurse(() => ({ status: 200, json: {} }));
    t.after(() => fake.close());
    const ended = new PurseError({ message: 'Your session ended.', status: 401, code: 'session_invalid' });
    const purse = new Purse({ baseUrl: fake.base, accessToken: () => Promise.reject(ended) });
    await assert.rejects(purse.balance.retrieve(), (e: unknown) => e === ended);
    assert.equal(fake.seen.length, 0);
  });

  test('a function that resolves to anything but a non-empty string: PurseError access_token_invalid', async (t) => {
    const fake = await startFakePurse(() => ({ status: 200, json: {} }));
    t.after(() => fake.close());
    for (const wrong of ['', undefined, { access_token: 'tok' }]) {
      const purse = new Purse({ baseUrl: fake.base, accessToken: async () => wrong as string });
      await assert.rejects(purse.balance.retrieve(), (e: unknown) => {
        assert.ok(e instanceof PurseError);
        assert.equal(e.code, 'access_token_invalid');
        assert.equal(e.type, 'authentication_error');
        return true;
      });
    }
    assert.equal(fake.seen.length, 0);
  });
});

describe('the options: exactly one of the two forms', () => {
  const base = 'http://127.0.0.1:9';
  const refused = (options: unknown, message: RegExp) =>
    assert.throws(
      () => new Purse(options as ConstructorParameters<typeof Purse>[0]),
      (e: unknown) => e instanceof TypeError && message.test(e.message),
    );

  test('both forms at once', () => {
    refused({ baseUrl: base, clientId: 'cli_1', clientSecret: 'sk_test_1', accessToken: async () => 'tok' }, /not both/);
    refused({ baseUrl: base, clientId: 'cli_1', accessToken: async () => 'tok' }, /not both/);
  });

  test('neither, or half of the client credentials', () => {
    refused({ baseUrl: base }, /clientId and clientSecret are required \(two strings\), or else accessToken/);
    refused({ baseUrl: base, clientId: 'cli_1' }, /clientId and clientSecret/);
    refused({ baseUrl: base, clientSecret: 'sk_test_1' }, /clientId and clientSecret/);
    refused({ baseUrl: base, clientId: 42, clientSecret: 'sk_test_1' }, /clientId and clientSecret/);
  });

  test('an accessToken that is not a function (a token string, say)', () => {
    refused({ baseUrl: base, accessToken: 'tok_1' }, /accessToken must be a function that returns a Promise of the token/);
  });

  test('no baseUrl, or no options', () => {
    refused({ accessToken: async () => 'tok' }, /baseUrl is required/);
    refused(undefined, /baseUrl is required/);
  });

  test('each form alone is accepted; an explicit undefined for the other form counts as absent', () => {
    assert.ok(new Purse({ baseUrl: base, clientId: 'cli_1', clientSecret: 'sk_test_1' }));
    assert.ok(new Purse({ baseUrl: base, accessToken: async () => 'tok' }));
    assert.ok(new Purse({ baseUrl: base, accessToken: async () => 'tok', clientId: undefined }));
  });
});
