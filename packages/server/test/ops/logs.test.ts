// Logs a developer can read: the request line of a refused request names the error code, and a
// terminal gets pino-pretty lines (PURSE_LOG_FORMAT, default pretty when stdout is a TTY) that
// still redact what JSON lines redact.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.ts';
import { ConfigError } from '../../src/shared/env.ts';
import { loggerOptions } from '../../src/shared/logging.ts';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { eventually, freePort, spawnServer, tokenFor, waitReady } from '../helpers/processes.ts';
import { migratedDataDir } from '../helpers/programs.ts';

test('a refused request logs its error code on the request line; a served one does not', async (t) => {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const app = await buildTestApp(t, { logger: pino(loggerOptions('info') as object, stream) });
  const merchant = await createTestMerchant(app);
  await app.inject({ method: 'POST', url: '/v1/payments', headers: merchant.auth, payload: { amount: '1.00' } });
  await app.inject({ method: 'GET', url: '/v1/merchant', headers: { authorization: 'Bearer nope' } });
  await app.inject({ method: 'GET', url: '/v1/merchant', headers: merchant.auth });
  const requests = lines.filter((l) => typeof l.route === 'string' && l.status !== undefined);
  const byStatus = (status: number) => requests.filter((l) => l.status === status);
  assert.equal(byStatus(400)[0]?.code, 'parameter_missing');
  assert.equal(byStatus(400)[0]?.msg, 'request refused: parameter_missing');
  assert.equal(byStatus(401)[0]?.code, 'token_invalid');
  const served = requests.find((l) => l.status === 200 && l.route === '/v1/merchant');
  assert.ok(served);
  assert.equal('code' in served, false);
});

test('PURSE_LOG_FORMAT: json or pretty, anything else refused; pretty lines are not JSON and keep redaction', async (t) => {
  assert.equal(loadConfig({ PURSE_LOG_FORMAT: 'json' }).logFormat, 'json');
  assert.equal(loadConfig({ PURSE_LOG_FORMAT: 'pretty' }).logFormat, 'pretty');
  assert.throws(() => loadConfig({ PURSE_LOG_FORMAT: 'xml' }), ConfigError);

  const dataDir = migratedDataDir(t, 'purse-pretty-');
  const port = await freePort();
  const server = spawnServer(t, { PORT: String(port), DATA_DIR: dataDir, PURSE_LOG_FORMAT: 'pretty', LOG_LEVEL: 'info' });
  await waitReady(server);
  const lines = server.output().split('\n');
  const at = lines.findIndex((l) => l.includes('client_id:'));
  const clientId = lines[at]!.split(':')[1]!.trim();
  const clientSecret = lines[at + 1]!.split(':')[1]!.trim();
  const auth = await tokenFor(server.base, clientId, clientSecret);
  await fetch(`${server.base}/v1/payments`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' });
  await eventually('the refused request logged', () => server.output().includes('request refused: parameter_missing'));
  const logLines = server
    .output()
    .split('\n')
    .filter((l) => /INFO|WARN|ERROR/.test(l));
  assert.ok(logLines.some((l) => l.includes('Purse is listening')));
  assert.ok(
    logLines.every((l) => !l.trimStart().startsWith('{')),
    'no JSON lines',
  );
  assert.equal(server.output().includes(auth.authorization.slice('Bearer '.length)), false, 'the token is not logged');
  const afterMessage = server.output().slice(server.output().indexOf('Lost the secret?'));
  assert.equal(afterMessage.includes(clientSecret), false, 'the secret appears only in the first-start message');
});
