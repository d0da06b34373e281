// The first minutes of a newcomer, on a real server process with the embedded database: the first
// start prints a token command that works as printed (no pasting), GET / points to the docs and
// the dashboard, /openapi.json names the host it was read from, and a second server on a taken port
// says so in one line instead of a stack trace.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { eventually, freePort, spawnServer, waitReady } from '../helpers/processes.ts';
import { migratedDataDir } from '../helpers/programs.ts';

const run = promisify(execFile);

test('first start: the printed token command works as printed; GET /; servers from the request; a taken port is one line', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'purse-newcomer-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const server = spawnServer(t, { PORT: String(port), DATA_DIR: dataDir, PURSE_BOOTSTRAP_MERCHANT: 'true', LOG_LEVEL: 'info' });
  await waitReady(server);
  await eventually('the bootstrap message', () => server.output().includes('Lost the secret?'));

  // The two lines after "Get an access token" form one bash command; run it as printed, then the next one.
  const lines = server.output().split('\n');
  const at = lines.findIndex((l) => l.startsWith('Get an access token'));
  assert.ok(at >= 0, server.output());
  const tokenCommand = `${lines[at + 1]!.replace(/\\$/, '')}${lines[at + 2]}`.trim();
  const then = lines.find((l) => l.startsWith('Then: '))!.slice('Then: '.length);
  const { stdout } = await run('bash', ['-c', `${tokenCommand}\n${then}`], { timeout: 60_000 });
  const merchant = JSON.parse(stdout) as { object: string; livemode: boolean };
  assert.equal(merchant.object, 'merchant');
  assert.equal(merchant.livemode, false);
  assert.match(server.output(), /npm run purse -- merchant rotate-secret mer_[0-9a-z]+ /);
  assert.doesNotMatch(server.output(), /npx purse/, 'outside the repository npx would fetch an unrelated package');

  const root = await fetch(`${server.base}/`);
  assert.equal(root.status, 200);
  const links = (await root.json()) as { links: Record<string, string> };
  assert.equal(links.links.docs, '/docs');
  assert.equal(links.links.dashboard, '/dashboard');
  const html = await fetch(`${server.base}/`, { headers: { accept: 'text/html' } });
  assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(await html.text(), /href="\/docs"/);

  const doc = (await (await fetch(`${server.base}/openapi.json`)).json()) as { servers: { url: string }[] };
  assert.deepEqual(
    doc.servers.map((s) => s.url),
    [server.base],
    'the host and port the document was read from',
  );
  const docs = (await (await fetch(`${server.base}/docs/json`)).json()) as { servers: { url: string }[] };
  assert.deepEqual(
    docs.servers.map((s) => s.url),
    [server.base],
  );

  const second = spawnServer(t, { PORT: String(port), DATA_DIR: migratedDataDir(t, 'purse-newcomer-2-') });
  await second.exited;
  assert.equal(second.child.exitCode, 1);
  assert.match(second.output(), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use.*PORT=${port + 1} npm start`));
  assert.doesNotMatch(second.output(), /\n\s+at /, 'no stack trace');
});

test('PURSE_PUBLIC_URL names the servers of the document whatever host the request used', async (t) => {
  const dataDir = migratedDataDir(t, 'purse-public-url-');
  const port = await freePort();
  const server = spawnServer(t, { PORT: String(port), DATA_DIR: dataDir, PURSE_PUBLIC_URL: 'https://pay.example.com/' });
  await waitReady(server);
  const doc = (await (await fetch(`${server.base}/openapi.json`)).json()) as { servers: { url: string }[] };
  assert.deepEqual(
    doc.servers.map((s) => s.url),
    ['https://pay.example.com'],
  );
});
