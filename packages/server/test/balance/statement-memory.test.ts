// A merchant downloads a CSV statement of 100,000 balance transactions through the HTTP server
// without the server's memory growing with the row count. The server runs in this process,
// so the client here reads the response as a stream, keeping one line at a time, and checks
// the chain as the lines arrive. Memory is sampled every 25 ms during each download: the live
// JS heap after a forced collection (what the process retains), and the raw heap and RSS.
// A buffered implementation holds the whole body (~13 MB for 100,000 lines) plus the rows it
// was built from (several times that); the streamed one holds one batch of 1,000.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { before, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'kysely';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { assertLedgerHealthy } from '../helpers/factories.ts';
import { atFileEnd, usePrivatePostgres } from '../webhooks/support.ts';
import { bulkInsert } from './bulk.ts';

// A database of its own on PostgreSQL: the slow-reader test counts transactions left open, and
// another file's transaction on a shared database would be counted with them.
const ready = usePrivatePostgres();

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MB = 1024 * 1024;
let app: TestApp;
let base = '';
let large: TestMerchant;
/** The server's side of every connection, to see what it has buffered for a slow reader. */
const serverSockets: Socket[] = [];

before(async () => {
  await ready();
  app = await buildTestApp(null, { env: { PURSE_WORKER: 'false' } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  app.server.on('connection', (socket: Socket) => serverSockets.push(socket));
});

// Before the private database is dropped (usePrivatePostgres's own after hook runs the cleanups first).
atFileEnd(async () => {
  await assertLedgerHealthy(app);
  await app.close();
  await app.deps.close();
});

/** Minor units of a plain 2-digit amount ("-12.50"). */
const minor = (text: string): bigint => BigInt(text.replace('.', ''));

interface Download {
  lines: number;
  ms: number;
  liveGrowthMb: number;
  heapGrowthMb: number;
  rssGrowthMb: number;
}

/** Downloads the statement, checking every line against the one after it (older), one line held at a time. */
async function download(m: TestMerchant): Promise<Download> {
  gc();
  const start = process.memoryUsage();
  let peakLive = start.heapUsed;
  let peakHeap = start.heapUsed;
  let peakRss = start.rss;
  const sampler = setInterval(() => {
    const raw = process.memoryUsage();
    peakHeap = Math.max(peakHeap, raw.heapUsed);
    peakRss = Math.max(peakRss, raw.rss);
    gc();
    peakLive = Math.max(peakLive, process.memoryUsage().heapUsed);
  }, 25);
  const began = performance.now();
  let lines = 0;
  let previous: { amount: bigint; balance: bigint } | null = null;
  let rest = '';
  const take = (line: string) => {
    lines++;
    if (lines === 1) {
      assert.equal(line, 'id,created_at,source_type,source_id,currency,amount,balance_after');
      return;
    }
    const fields = line.split(',');
    assert.equal(fields.length, 7, line);
    const current = { amount: minor(fields[5] as string), balance: minor(fields[6] as string) };
    // Newest first: the line above is this one's balance plus its own amount.
    if (previous) assert.equal(previous.balance - previous.amount, current.balance, `chain at line ${lines}`);
    previous = current;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      http
        .get(`${base}/v1/balance_transactions`, { headers: { ...m.auth, accept: 'text/csv' } }, (res) => {
          assert.equal(res.statusCode, 200);
          assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            const parts = (rest + chunk).split('\r\n');
            rest = parts.pop() ?? '';
            for (const part of parts) take(part);
          });
          res.on('end', resolve);
          res.on('error', reject);
        })
        .on('error', reject);
    });
  } finally {
    clearInterval(sampler);
  }
  assert.equal(rest, '', 'the body ends with CRLF');
  // The oldest line follows from zero.
  const last = previous as { amount: bigint; balance: bigint } | null;
  assert.ok(last);
  assert.equal(last.balance, last.amount, 'the oldest line starts from zero');
  return {
    lines,
    ms: performance.now() - began,
    liveGrowthMb: (peakLive - start.heapUsed) / MB,
    heapGrowthMb: (peakHeap - start.heapUsed) / MB,
    rssGrowthMb: (peakRss - start.rss) / MB,
  };
}

test('a 100,000-line statement streams in memory that does not grow with the row count', async () => {
  const small = await createTestMerchant(app, 'Ten thousand');
  large = await createTestMerchant(app, 'Hundred thousand');
  const db = app.deps.db.db;
  const insertStart = performance.now();
  await bulkInsert(db, small.merchantId, 10_000, 'KES');
  // In 25,000-row statements: PGlite holds a statement's work in its WASM memory.
  for (let offset = 0; offset < 100_000; offset += 25_000) await bulkInsert(db, large.merchantId, 25_000, 'KES', offset);
  const insertMs = performance.now() - insertStart;

  const tenK = await download(small);
  const hundredK = await download(large);
  const figures = {
    database: app.deps.db.kind,
    insert_110k_rows_ms: Math.round(insertMs),
    '10k': { ...tenK, rowsPerS: Math.round(((tenK.lines - 1) / tenK.ms) * 1000) },
    '100k': { ...hundredK, rowsPerS: Math.round(((hundredK.lines - 1) / hundredK.ms) * 1000) },
  };
  process.stdout.write(`# statement figures ${JSON.stringify(figures)}\n`);
  assert.equal(tenK.lines, 10_001);
  assert.equal(hundredK.lines, 100_001);
  // Ten times the rows, about the same live memory: the streamed download holds one batch.
  // Negative control (the body buffered into one string before sending): +11.7 MB live for 100k
  // lines against +0.5 MB for 10k, raw heap peak +96 MB, RSS +100 MB; streamed: +1.3 MB live.
  assert.ok(hundredK.liveGrowthMb < 6, `live heap grew ${hundredK.liveGrowthMb.toFixed(1)} MB for 100k lines`);
  assert.ok(
    hundredK.liveGrowthMb < tenK.liveGrowthMb * 3 + 4,
    `100k lines: +${hundredK.liveGrowthMb.toFixed(1)} MB, 10k lines: +${tenK.liveGrowthMb.toFixed(1)} MB`,
  );
});

test('a reader that stops reading stops the statement: the server buffers about one batch, not the rest', async () => {
  const pauseMs = 1_500;
  let received = 0;
  const atPause = await new Promise<{ received: number; buffered: number; written: number }>((resolve, reject) => {
    http
      // A connection of its own (no keep-alive agent), so the newest server socket is this one.
      .get(`${base}/v1/balance_transactions`, { agent: false, headers: { ...large.auth, accept: 'text/csv' } }, (res) => {
        assert.equal(res.statusCode, 200);
        res.once('data', (chunk: Buffer) => {
          received += chunk.length;
          res.pause();
          setTimeout(() => {
            const socket = serverSockets.at(-1) as Socket;
            resolve({ received, buffered: socket.writableLength, written: socket.bytesWritten });
            res.destroy();
          }, pauseMs);
        });
        res.on('error', () => {});
      })
      .on('error', reject);
  });
  process.stdout.write(`# slow reader ${JSON.stringify(atPause)}\n`);
  // Without backpressure the server would have read and queued the whole 9.5 MB body by now;
  // with it, what sits in the process is at most a batch or two (~95 KB each), the rest of what
  // was written is in the kernel's socket buffers.
  assert.ok(atPause.buffered < 512 * 1024, `server-side buffer ${atPause.buffered} bytes`);
  assert.ok(atPause.written + atPause.buffered < 8 * MB, `server wrote ${atPause.written} bytes to a paused reader`);
  if (app.deps.db.kind === 'postgres') {
    // The reader left mid-download: the statement's snapshot transaction must end with it.
    const open = async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`.execute(
            app.deps.db.db,
          )
        ).rows[0]?.n,
      );
    const deadline = Date.now() + 3_000;
    while ((await open()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await open(), 0, 'no statement transaction left open');
  }
});
