// npm run demo runs the walk-through as written: it starts its own Purse, every step succeeds, and
// it leaves nothing running.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

test('npm run demo: every step of the walk-through, against a Purse it starts and stops', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['examples/demo.mjs'], {
    cwd: ROOT,
    timeout: 180_000,
    env: { PATH: process.env.PATH },
  });
  for (let n = 1; n <= 9; n++) assert.match(stdout, new RegExp(`\\n${n}\\. `), `step ${n}`);
  assert.match(stdout, /declined card: \{"status":"failed","failure":\{"code":"card_declined"/);
  assert.match(stdout, /settled: \{"status":"succeeded"\}/);
  assert.match(stdout, /refund: \{"status":"succeeded","amount":"4.00"\}/);
  assert.match(stdout, /payout: \{"status":"succeeded"\}/);
  assert.match(stdout, /\nDone\./);
});
