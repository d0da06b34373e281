// The fault-injecting sandbox (PURSE_SANDBOX_FAULTS=true): the provider processes a request and
// then loses or breaks its answer. The outcome is unknown, so the charge stays pending (never failed),
// the worker asks for the status, and the provider's truth wins, without a second provider charge.
// Without the flag the fault numbers are ordinary successes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { ConfigError } from '../../src/shared/env.ts';
import { buildTestApp, createTestMerchant, type TestApp } from '../helpers/app.ts';
import { assertLedgerHealthy, get, mobileMethod, post, uniqueRef, waitFor } from '../helpers/factories.ts';

const PROVIDER_TIMEOUT_MS = 200;

async function books(app: TestApp, id: string) {
  return app.deps.db.db.selectFrom('sandbox_provider_charges').selectAll().where('idempotency_key', '=', id).execute();
}

async function postings(app: TestApp, id: string): Promise<number> {
  return (await app.deps.db.db.selectFrom('ledger_transactions').select('id').where('source_id', '=', id).execute()).length;
}

test('configuration: PURSE_SANDBOX_FAULTS is off by default and validated; the provider timeout is bounded', () => {
  assert.equal(loadConfig({}).sandboxFaults, false);
  assert.equal(loadConfig({ PURSE_SANDBOX_FAULTS: 'true' }).sandboxFaults, true);
  assert.throws(() => loadConfig({ PURSE_SANDBOX_FAULTS: 'yes' }), ConfigError);
  assert.equal(loadConfig({}).providerTimeoutMs, 10_000);
  assert.throws(() => loadConfig({ PURSE_PROVIDER_TIMEOUT_MS: '10' }), ConfigError);
  assert.throws(() => loadConfig({ PURSE_PROVIDER_TIMEOUT_MS: '20000' }), ConfigError);
});

test('flag off: 090, 091 and 092 are ordinary successes', async (t) => {
  // The default provider timeout (10 s): the provider must answer here, even on a slow machine.
  const app = await buildTestApp(t);
  app.deps.worker.start();
  const merchant = await createTestMerchant(app);
  for (const suffix of ['090', '091', '092']) {
    const res = await post(app, merchant, '/v1/payments', {
      reference: uniqueRef(),
      amount: '10.00',
      currency: 'KES',
      payment_method: mobileMethod(`+254712345${suffix}`),
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().status, 'pending');
    assert.match(res.json().provider_reference, /^sbx_/, `${suffix}: the provider answered`);
    const settled = await waitFor(async () => {
      const view = (await get(app, merchant, `/v1/payments/${res.json().id}`)).json();
      return view.status !== 'pending' ? view : null;
    });
    assert.equal(settled.status, 'succeeded', suffix);
  }
  await assertLedgerHealthy(app);
});

test('flag on: the answer is lost (090) or the connection drops (092) after processing: pending, then succeeded once', async (t) => {
  const app = await buildTestApp(t, { env: { PURSE_SANDBOX_FAULTS: 'true', PURSE_PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS) } });
  app.deps.worker.start();
  const merchant = await createTestMerchant(app);
  for (const suffix of ['090', '092']) {
    const body = { reference: uniqueRef(), amount: '10.00', currency: 'KES', payment_method: mobileMethod(`+254712345${suffix}`) };
    const started = Date.now();
    const res = await post(app, merchant, '/v1/payments', body);
    const ms = Date.now() - started;
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json();
    assert.equal(created.status, 'pending', 'an unknown outcome is pending, never failed');
    assert.equal(created.provider_reference, null, 'no answer came back');
    if (suffix === '090') assert.ok(ms >= PROVIDER_TIMEOUT_MS, `the caller's timeout fired (${ms} ms)`);
    assert.equal((await books(app, created.id)).length, 1, 'the provider processed it');

    const replay = await post(app, merchant, '/v1/payments', body);
    assert.equal(replay.statusCode, 200, replay.body);
    assert.equal(replay.json().id, created.id);

    const settled = await waitFor(async () => {
      const view = (await get(app, merchant, `/v1/payments/${created.id}`)).json();
      return view.status !== 'pending' ? view : null;
    }, 10_000);
    assert.equal(settled.status, 'succeeded', suffix);
    const [row] = await books(app, created.id);
    assert.equal(settled.provider_reference, row!.provider_reference, 'the status query found the provider reference');
    assert.equal((await books(app, created.id)).length, 1, 'no second provider charge');
    assert.equal(await postings(app, created.id), 1);
  }
  await assertLedgerHealthy(app);
});

test('flag on: 091 is processed, never answered, never settled: failed expired at expires_at', async (t) => {
  const app = await buildTestApp(t, {
    env: { PURSE_SANDBOX_FAULTS: 'true', PURSE_PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS), PURSE_MOBILE_MONEY_EXPIRY_S: '2' },
  });
  app.deps.worker.start();
  const merchant = await createTestMerchant(app);
  const res = await post(app, merchant, '/v1/payments', {
    reference: uniqueRef(),
    amount: '10.00',
    currency: 'KES',
    payment_method: mobileMethod('+254712345091'),
  });
  assert.equal(res.statusCode, 201, res.body);
  assert.equal(res.json().status, 'pending');
  const settled = await waitFor(async () => {
    const view = (await get(app, merchant, `/v1/payments/${res.json().id}`)).json();
    return view.status !== 'pending' ? view : null;
  }, 15_000);
  assert.equal(settled.status, 'failed');
  assert.equal(settled.failure.code, 'expired');
  assert.ok(Date.parse(settled.completed_at) >= Date.parse(settled.expires_at), 'not before expires_at');
  assert.equal((await books(app, res.json().id))[0]!.outcome, 'pending', 'the provider never settled it');
  assert.equal(await postings(app, res.json().id), 0);
  await assertLedgerHealthy(app);
});

test('flag on: the lost answer (090) is really cancelled at the deadline, not only abandoned', async (t) => {
  const app = await buildTestApp(t, { env: { PURSE_SANDBOX_FAULTS: 'true', PURSE_PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS) } });
  const merchant = await createTestMerchant(app);
  const sandbox = app.deps.sandboxConnector;
  const original = sandbox.initiate;
  const calls: { signal: AbortSignal; settled: Promise<string> }[] = [];
  sandbox.initiate = (request, signal) => {
    const answer = original(request, signal);
    calls.push({
      signal,
      settled: answer.then(
        () => 'answered',
        (error: Error) => error.name,
      ),
    });
    return answer;
  };
  t.after(() => {
    sandbox.initiate = original;
  });
  const res = await post(app, merchant, '/v1/payments', {
    reference: uniqueRef(),
    amount: '10.00',
    currency: 'KES',
    payment_method: mobileMethod('+254712345090'),
  });
  assert.equal(res.statusCode, 201, res.body);
  assert.equal(res.json().status, 'pending');
  assert.equal(calls.length, 1);
  assert.equal(calls[0]!.signal.aborted, true, 'the deadline fired');
  assert.equal(await calls[0]!.settled, 'TimeoutError', "the connector's own call rejected with the deadline");
});

test('an already aborted signal: the sandbox does nothing and rejects', async (t) => {
  const app = await buildTestApp(t, { env: { PURSE_SANDBOX_FAULTS: 'true' } });
  const request = {
    idempotencyKey: 'pay_01jd6x8v1ffq8v2k3m4n5p6q7r',
    kind: 'payment' as const,
    amountMinor: 1000n,
    currency: 'KES',
    method: { type: 'mobile_money' as const, phoneNumber: '+254712345000', provider: null },
    expiresAt: null,
  };
  const aborted = AbortSignal.abort(new Error('caller gone'));
  await assert.rejects(app.deps.sandboxConnector.initiate(request, aborted), /caller gone/);
  await assert.rejects(app.deps.sandboxConnector.getStatus({ idempotencyKey: request.idempotencyKey, providerReference: null }, aborted));
  assert.equal((await books(app, request.idempotencyKey)).length, 0, 'never reached the books');
  const answered = await app.deps.sandboxConnector.initiate(request, AbortSignal.timeout(5_000));
  assert.equal(answered.status, 'pending', 'a live signal: answered as usual');
});
