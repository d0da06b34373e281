// A card or mobile-money charge that was claimed (its row written, leased to the request) but
// whose provider call never happened: the request died, or answered 503 because its COMMIT's
// outcome was unknown, in between. The retry with the same reference and body sends it itself as
// soon as the dead attempt's lease is over (charges/resume-claimed.ts), instead of answering
// `pending` that nobody acts on, which left a card to fail processing_error after 120 s. (That a
// retry never sends while the holder may still be sending: the identical storms of
// test/concurrency/storms.test.ts, one provider call per reference.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from '../../src/shared/ids.ts';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { cardMethod, mobileMethod, uniqueRef } from '../helpers/factories.ts';

for (const [means, method] of [
  ['card', cardMethod()],
  ['mobile money', mobileMethod()],
] as const) {
  test(`${means}: a retry resumes a claimed charge the provider never saw, at once`, async (t) => {
    const app = await buildTestApp(t);
    const merchant = await createTestMerchant(app);
    const body = (reference: string) => ({ reference, amount: '5.00', currency: 'KES', payment_method: method });
    const first = await app.inject({ method: 'POST', url: '/v1/payments', headers: merchant.auth, payload: body(uniqueRef('model')) });
    assert.equal(first.statusCode, 201, first.body);
    const model = await app.deps.db.db.selectFrom('charges').selectAll().where('id', '=', first.json().id).executeTakeFirstOrThrow();

    // The state a dead first attempt leaves: claimed 13 s ago (its 15 s lease has 2 s left), never sent.
    const reference = uniqueRef('claimed');
    const now = new Date();
    const lease = new Date(now.getTime() + 2_000);
    const id = newId('payment');
    await app.deps.db.db
      .insertInto('charges')
      .values({
        ...model,
        id,
        reference,
        status: 'pending',
        provider_state: 'not_started',
        provider_reference: null,
        failure_code: null,
        failure_message: null,
        amount_received: null,
        completed_at: null,
        created_at: now,
        updated_at: now,
        lease_until: lease,
        next_check_at: lease,
        attempts: 0,
      } as never)
      .execute();

    const started = Date.now();
    const retry = await app.inject({ method: 'POST', url: '/v1/payments', headers: merchant.auth, payload: body(reference) });
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.json().id, id, 'the same payment, never a second one');
    const row = await app.deps.db.db.selectFrom('charges').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    // Sent to the provider: settled from its answer (a card), or initiated and waiting on the payer (mobile money).
    assert.ok(row.provider_reference !== null, `the provider knows it: ${retry.body}`);
    assert.ok(row.completed_at !== null || row.provider_state === 'initiated', `sent: ${row.status} ${row.provider_state}`);
    const waited = Date.now() - started;
    assert.ok(waited >= 1_500 && waited < 8_000, `sent once the lease was over (${waited} ms), not after 120 s`);
    const count = await app.deps.db.db
      .selectFrom('charges')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('merchant_id', '=', merchant.merchantId)
      .where('reference', '=', reference)
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 1);
  });
}
