import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { loggerOptions } from '../../src/shared/logging.ts';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { cardMethod, post, uniqueRef } from '../helpers/factories.ts';

test('logs at debug level hold no full card number and no CVC, even for refused and failed cards', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = await buildTestApp(t, { logger: pino(loggerOptions('debug') as object, stream) });
  const merchant = await createTestMerchant(app);
  const cvc = '9713';
  const numbers = ['4242424242424242', '4000000000000002', '4000000000000119', '4242424242424241'];
  for (const number of numbers) {
    await post(app, merchant, '/v1/payments', {
      reference: uniqueRef(),
      amount: '5',
      currency: 'KES',
      payment_method: cardMethod({ number, cvc }),
    });
  }
  // Refused before any work, and a bad body with a card inside.
  await post(app, merchant, '/v1/payments', {
    reference: uniqueRef(),
    amount: 'x',
    currency: 'KES',
    payment_method: cardMethod({ number: numbers[0]!, cvc }),
  });
  await post(app, merchant, '/v1/payments', {
    reference: uniqueRef(),
    amount: '5',
    currency: 'KES',
    payment_method: cardMethod({ number: numbers[0]!, cvc }),
    extra: 1,
  });
  assert.ok(lines.length >= 6, 'requests were logged');
  // The scan reads each line's fields, not its timestamp (a millisecond time can hold any four
  // digits), and must find what it looks for: a canary logged through the same logger is found.
  const scannable = (line: string) => {
    const { time: _time, ...fields } = JSON.parse(line) as Record<string, unknown>;
    return JSON.stringify(fields);
  };
  app.deps.logger.warn({ canary: `card ${numbers[0]} cvc ${cvc}` }, 'canary');
  const withCanary = lines.map(scannable).join('\n');
  assert.ok(withCanary.includes(numbers[0]!) && withCanary.includes(cvc), 'the scan finds a planted card number and CVC');
  const output = lines
    .filter((line) => !line.includes('"canary"'))
    .map(scannable)
    .join('\n');
  for (const number of numbers) assert.equal(output.includes(number), false, `a log line holds ${number}`);
  assert.equal(output.includes(cvc), false, 'a log line holds the CVC');
});
