// Purse.webhooks.verify: deliveries signed with the standardwebhooks library (as Purse signs them)
// verify from a string, a Buffer or bytes, with the headers as Node or fetch give them; parsed JSON
// or any other type is a PurseError that says to pass the raw body; a wrong, stale or missing
// signature is a PurseError too. Never a Node internal error.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { Purse, PurseError } from '../src/index.ts';

const secret = `whsec_${Buffer.from('a test secret of 32 bytes please').toString('base64')}`;
const otherSecret = `whsec_${Buffer.from('another secret, also 32 bytes ok').toString('base64')}`;
const event = { id: 'evt_1', object: 'event', type: 'payment.succeeded', data: { object: { id: 'pay_1', amount: '1.00' } } };
const body = JSON.stringify(event);

/** The headers of a delivery of `payload`, signed at `at`. */
function signed(payload: string, at = new Date(), key = secret): Record<string, string> {
  return {
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(key).sign('evt_1', at, payload),
  };
}

/** Calls verify and returns the PurseError it must throw. */
function refusal(...args: Parameters<typeof Purse.webhooks.verify>): PurseError {
  try {
    Purse.webhooks.verify(...args);
  } catch (error) {
    assert.ok(error instanceof PurseError, `a PurseError, not ${(error as Error)?.constructor?.name}: ${(error as Error)?.message}`);
    assert.notEqual((error as { code?: string }).code, 'ERR_INVALID_ARG_TYPE');
    assert.equal(error.type, 'webhook_error');
    assert.equal(error.status, null);
    return error;
  }
  assert.fail('verify should have thrown');
}

describe('a delivery verifies', () => {
  const headers = signed(body);
  for (const [name, raw] of [
    ['a string', body],
    ['a Buffer', Buffer.from(body)],
    ['a Uint8Array', new TextEncoder().encode(body)],
  ] as const) {
    test(`from ${name}`, () => assert.deepEqual(Purse.webhooks.verify(raw, headers, secret), event));
  }
  test('with Headers, or Node headers with other cases and array values', () => {
    assert.deepEqual(Purse.webhooks.verify(body, new Headers(headers), secret), event);
    const node = {
      'Webhook-Id': headers['webhook-id'],
      'WEBHOOK-TIMESTAMP': [headers['webhook-timestamp']!],
      'webhook-signature': headers['webhook-signature'],
      host: undefined,
    };
    assert.deepEqual(Purse.webhooks.verify(Buffer.from(body), node, secret), event);
  });
  test('with a signature header that lists an old and a new signature (secret rotation)', () => {
    const both = {
      ...headers,
      'webhook-signature': `${signed(body, new Date(), otherSecret)['webhook-signature']} ${headers['webhook-signature']}`,
    };
    assert.deepEqual(Purse.webhooks.verify(body, both, secret), event);
  });
});

describe('anything but the raw body is refused with a PurseError that says so', () => {
  const headers = signed(body);
  for (const [name, value] of [
    ['parsed JSON (express.json())', event],
    ['an array', [event]],
    ['a number', 42],
    ['null', null],
    ['undefined (no body parser ran)', undefined],
    ['an ArrayBuffer', new TextEncoder().encode(body).buffer],
  ] as const) {
    test(name, () => {
      const error = refusal(value as never, headers, secret);
      assert.equal(error.code, 'body_not_raw');
      assert.match(error.message, /pass the raw request body \(Buffer or string\), not parsed JSON/);
    });
  }
});

describe('a signature that does not verify is a PurseError signature_invalid', () => {
  const headers = signed(body);
  const cases: [string, () => PurseError][] = [
    ['one byte changed', () => refusal(body.replace('1.00', '9.00'), headers, secret)],
    ['the body parsed and serialised again', () => refusal(JSON.stringify(JSON.parse(body), null, 2), headers, secret)],
    ['another secret', () => refusal(body, headers, otherSecret)],
    ['signed 10 minutes ago (a replay)', () => refusal(body, signed(body, new Date(Date.now() - 600_000)), secret)],
    ['no signature headers', () => refusal(body, { 'content-type': 'application/json' }, secret)],
    ['headers null', () => refusal(body, null as never, secret)],
  ];
  for (const [name, run] of cases) {
    test(name, () => {
      const error = run();
      assert.equal(error.code, 'signature_invalid');
      assert.ok(error.message.length > 20 && !/ERR_/.test(error.message), error.message);
    });
  }
  test('the message says what to check', () => {
    assert.match(refusal(body.replace('1.00', '9.00'), headers, secret).message, /raw bytes received.*secret/s);
    assert.match(refusal(body, signed(body, new Date(Date.now() - 600_000)), secret).message, /too old/);
  });
});

test('a secret that is missing or not a whsec_ secret is a PurseError secret_invalid', () => {
  const headers = signed(body);
  for (const bad of [undefined, '', 'whsec_!!not base64!!', 42]) {
    const error = refusal(body, headers, bad as never);
    assert.equal(error.code, 'secret_invalid', String(bad));
    assert.match(error.message, /whsec_/);
  }
});

test('over node:http: the raw body collected from the request verifies; a changed body is refused', async (t) => {
  // The pattern the README shows for node:http: collect the chunks, verify the bytes, then parse nothing more.
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        received.push(Purse.webhooks.verify(Buffer.concat(chunks), req.headers, secret).id);
        res.writeHead(204).end();
      } catch (error) {
        res.writeHead(400).end((error as PurseError).code);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const headers = { ...signed(body), 'content-type': 'application/json' };
  assert.equal((await fetch(url, { method: 'POST', headers, body })).status, 204);
  const tampered = await fetch(url, { method: 'POST', headers, body: body.replace('pay_1', 'pay_2') });
  assert.deepEqual([tampered.status, await tampered.text()], [400, 'signature_invalid']);
  assert.deepEqual(received, ['evt_1']);
});
