// `purse reconcile`: Purse asks the provider about every object of the window, applies a final
// answer for what is pending here, and reports every disagreement: the planted mismatches are
// found, and nothing else (the fake's other payments agree with Purse's books).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runCli } from '../../src/cli/run.ts';
import { type FakeMtn, fakeMtnEnv, MTN_SUFFIXES, startFakeMtn } from '../fakes/mtn.ts';
import { buildTestApp, createTestMerchant, TEST_ENV, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { post, uniqueRef } from '../helpers/factories.ts';
import { freePort } from '../helpers/processes.ts';
import { migratedDataDir } from '../helpers/programs.ts';
import { usePrivatePostgres } from '../webhooks/support.ts';

const privateDatabase = usePrivatePostgres();

let fake: FakeMtn;
let app: TestApp;
let merchant: TestMerchant;

before(async () => {
  await privateDatabase();
  fake = await startFakeMtn({ settleDelayMs: 20 });
  fake.faults.callbacks = 'never';
  const port = await freePort();
  app = await buildTestApp(null, { env: { ...fakeMtnEnv(fake, `http://127.0.0.1:${port}`), PURSE_WORKER: 'false' } });
  await app.listen({ port, host: '127.0.0.1' });
  merchant = await createTestMerchant(app, 'Reconciled merchant', true);
});

after(async () => {
  await app.close();
  await app.deps.close();
  await fake.close();
});

const phone = (suffix: string) => `+25677${String(Math.floor(Math.random() * 1e4)).padStart(4, '0')}${suffix}`;

async function pay(suffix: string = MTN_SUFFIXES.success, amount = '1000'): Promise<string> {
  const res = await post(app, merchant, '/v1/payments', {
    reference: uniqueRef('rec'),
    amount,
    currency: 'UGX',
    payment_method: { type: 'mobile_money', mobile_money: { phone_number: phone(suffix), provider: 'mtn' } },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

const db = () => app.deps.db.db;

test('every planted mismatch is reported, what is pending here is applied, and nothing else', async () => {
  // Agreeing objects: pending here and settled there (applied), and two that stay pending.
  const pendingOk = [await pay(), await pay()];
  const stillOpen = await pay(MTN_SUFFIXES.neverSettles);
  // Planted: failed here but paid at MTN (money that arrived late).
  const lateMoney = await pay();
  // Planted: succeeded here, failed at MTN.
  const wronglySucceeded = await pay(MTN_SUFFIXES.notEnoughFunds);
  // Planted: both succeeded, for different amounts.
  const otherAmount = await pay(MTN_SUFFIXES.success, '2000');
  // Planted: Purse says it sent it; MTN never saw it (its create was refused with a 500).
  fake.faults.errors500 = 1;
  const unknown = await pay();
  await new Promise((resolve) => setTimeout(resolve, 100)); // past the fake's settling delay

  const now = new Date();
  await db()
    .updateTable('charges')
    .set({
      status: 'failed',
      failure_code: 'expired',
      failure_message: 'The payer did not complete the request in time.',
      completed_at: now,
    })
    .where('id', '=', lateMoney)
    .execute();
  await db()
    .updateTable('charges')
    .set({ status: 'succeeded', completed_at: now })
    .where('id', 'in', [wronglySucceeded, otherAmount])
    .execute();
  await db().updateTable('charges').set({ amount: '2500' }).where('id', '=', otherAmount).execute();
  await db().updateTable('charges').set({ provider_state: 'initiated' }).where('id', '=', unknown).execute();

  const report = await app.deps.services.reconciliation.run('mtn', new Date(Date.now() - 3_600_000));
  const found = report.mismatches.map((m) => `${m.kind} ${m.id}`).sort();
  assert.deepEqual(
    found,
    [
      `amount_differs ${otherAmount}`,
      `failed_at_provider_succeeded_here ${wronglySucceeded}`,
      `succeeded_at_provider_failed_here ${lateMoney}`,
      `unknown_at_provider ${unknown}`,
    ].sort(),
    JSON.stringify(report, null, 1),
  );
  const amount = report.mismatches.find((m) => m.kind === 'amount_differs');
  assert.deepEqual([amount?.here.amount, amount?.provider.amount], ['2500', '2000']);
  assert.deepEqual(report.applied.map((a) => a.id).sort(), [...pendingOk].sort());
  assert.equal(report.checked, 7);
  for (const id of pendingOk) {
    assert.equal((await db().selectFrom('charges').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status, 'succeeded');
  }
  assert.equal((await db().selectFrom('charges').select('status').where('id', '=', stillOpen).executeTakeFirstOrThrow()).status, 'pending');
  // A contradiction is never applied over a final state: it is kept as the late outcome.
  const late = await db().selectFrom('charges').select(['status', 'late_outcome']).where('id', '=', lateMoney).executeTakeFirstOrThrow();
  assert.equal(late.status, 'failed');
  assert.equal((late.late_outcome as { status: string }).status, 'succeeded');

  // A second run finds the same disagreements and applies nothing more.
  const again = await app.deps.services.reconciliation.run('mtn', new Date(Date.now() - 3_600_000));
  assert.deepEqual(again.mismatches.map((m) => `${m.kind} ${m.id}`).sort(), found);
  assert.deepEqual(again.applied, []);
});

test('the command: a provider that is not configured, and a bad --since, are refused with the way out', async (t) => {
  const dir = migratedDataDir(t, 'purse-reconcile-');
  const run = async (...argv: string[]) => {
    let out = '';
    let err = '';
    const code = await runCli(argv, {
      env: { ...TEST_ENV, DATA_DIR: dir, DATABASE_URL: undefined },
      stdout: (s) => {
        out += s;
      },
      stderr: (s) => {
        err += s;
      },
    });
    return { code, out, err };
  };
  const unconfigured = await run('reconcile', '--provider', 'mtn');
  assert.notEqual(unconfigured.code, 0);
  assert.match(unconfigured.err, /not configured here \(set its PURSE_MTN_\* variables\)/);
  const missing = await run('reconcile');
  assert.match(missing.err, /--provider mtn\|mpesa/);
  const env = fakeMtnEnv(fake, 'http://127.0.0.1:1');
  let out = '';
  let err = '';
  const badSince = await runCli(['reconcile', '--provider', 'mtn', '--since', 'yesterday'], {
    env: { ...TEST_ENV, ...env, DATA_DIR: dir },
    stdout: (s) => {
      out += s;
    },
    stderr: (s) => {
      err += s;
    },
  });
  assert.notEqual(badSince, 0);
  assert.match(err, /--since yesterday: give an ISO time/);
  const ok = await runCli(['reconcile', '--provider', 'mtn', '--since', '24h', '--json'], {
    env: { ...TEST_ENV, ...env, DATA_DIR: dir },
    stdout: (s) => {
      out += s;
    },
    stderr: (s) => {
      err += s;
    },
  });
  assert.equal(ok, 0, err);
  const report = JSON.parse(out.trim().split('\n').at(-1) as string);
  assert.deepEqual([report.provider, report.checked, report.mismatches], ['mtn', 0, []]);
});
