// Expired access tokens are purged by a worker, in bounded batches; tokens still valid (or expired
// less than a day ago) are kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, createTestMerchant, manualClock } from '../helpers/app.ts';
import { usePrivatePostgres } from '../webhooks/support.ts';

// A database of its own on PostgreSQL: what this file counts or re-keys is its own rows only.
usePrivatePostgres();

test('the purge worker deletes tokens expired over a day ago, in batches, and keeps the others', async (t) => {
  const clock = manualClock();
  const app = await buildTestApp(t, { clock });
  const merchant = await createTestMerchant(app, 'Purge');
  const db = app.deps.db.db;
  const count = async () =>
    Number(
      (
        await db
          .selectFrom('access_tokens')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  // 1,500 old tokens (more than one batch) beside the merchant's live one.
  const old = new Date(clock.now().getTime() - 3 * 86_400_000);
  const key = await db.selectFrom('api_keys').select('id').where('client_id', '=', merchant.clientId).executeTakeFirstOrThrow();
  const rows = Array.from({ length: 1_500 }, (_, i) => ({
    token_hash: `purge-test-${i}`,
    merchant_id: merchant.merchantId,
    credential_version: 1,
    api_key_id: key.id,
    key_version: 1,
    expires_at: old,
    created_at: old,
  }));
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('access_tokens')
      .values(rows.slice(i, i + 500) as never)
      .execute();
  const before = await count();
  assert.ok(before >= 1_501);
  const first = await app.deps.purgeWorker.runOnce();
  assert.equal(first, 1_000, 'one bounded batch');
  const second = await app.deps.purgeWorker.runOnce();
  assert.equal(second, 500);
  assert.equal(await app.deps.purgeWorker.runOnce(), 0);
  assert.equal(await count(), before - 1_500);
  const stillWorks = await app.inject({ method: 'GET', url: '/v1/wallets', headers: merchant.auth });
  assert.equal(stillWorks.statusCode, 200, 'the live token is kept');
});
