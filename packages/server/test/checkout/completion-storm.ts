// Concurrent completion of one checkout session: 20 submissions of the same card at once, then 5
// more syncs, as polling pages and the worker would. Shared by test/checkout/attempts.test.ts and
// the negative control (test/negative-control.ts), which runs it against a broken completion.
import { sql } from 'kysely';
import type { TestApp, TestMerchant } from '../helpers/app.ts';
import { uniqueRef } from '../helpers/factories.ts';
import { card, sessionRow } from './support.ts';

export interface CompletionFigures {
  payments: number;
  completedEvents: number;
  status: string;
  refusals: string[];
}

export async function runCompletionStorm(app: TestApp, merchant: TestMerchant): Promise<CompletionFigures> {
  const created = await app.deps.services.checkout.createSession(
    { merchantId: merchant.merchantId, livemode: false, rawCardData: false, apiKeyId: 'key_test', scopes: ['all'] },
    {
      reference: uniqueRef('storm'),
      amount: '10.00',
      currency: 'KES',
      success_url: 'https://shop.example/ok',
      cancel_url: 'https://shop.example/',
    },
  );
  const id = created.object.id;
  const row = await sessionRow(app, id);
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => app.deps.services.checkoutAttempts.pay(row, card(), `10.77.${i}.1`)),
  );
  await Promise.all(Array.from({ length: 5 }, async () => app.deps.services.checkout.sync(await sessionRow(app, id))));
  const db = app.deps.db.db;
  const payments = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM charges WHERE reference LIKE ${`${created.object.reference}/%`}`.execute(db);
  const events = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM events WHERE object_id = ${id} AND type = 'checkout_session.completed'`.execute(db);
  return {
    payments: Number(payments.rows[0]?.n),
    completedEvents: Number(events.rows[0]?.n),
    status: (await sessionRow(app, id)).status,
    refusals: results.flatMap((r) => (r.ok ? [] : [r.refusal])),
  };
}
