// The identical and the mixed reference storm, per means, in process (app.inject).
// On PGlite the transactions queue on one connection; on PostgreSQL (TEST_DATABASE_URL) they race.
import { test } from 'node:test';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { ALL_MEANS, countInitiateCalls, identicalStorm, mixedStorm, stormFixtures } from './storms.ts';
import { injectClient, reportFigures } from './support.ts';

const database = testDatabaseUrl() ? 'postgres' : 'pglite';
/**
 * Storms run per means, repeated. Repeating matters where requests race (PostgreSQL);
 * on PGlite they run one at a time, so one round shows all there is to see.
 */
const ROUNDS = database === 'postgres' ? 2 : 1;

test('reference storms, per means, in process', async (t) => {
  const app = await buildTestApp(t);
  const merchant = await createTestMerchant(app, 'Storms');
  const client = injectClient(app, merchant.auth);
  const initiate = countInitiateCalls(app);
  const fixtures = await stormFixtures(client);
  const checks = { app, providerCalls: initiate.calls };

  for (const means of ALL_MEANS) {
    await t.test(`identical storm: ${means}`, async (st) => {
      for (let round = 1; round <= ROUNDS; round++) {
        const figures = await identicalStorm(client, means, fixtures, checks);
        reportFigures(st, `identical storm (${database}, inject, round ${round})`, { ...figures });
      }
    });
  }
  for (const means of ALL_MEANS) {
    await t.test(`mixed storm: ${means}`, async (st) => {
      const figures = await mixedStorm(client, means, fixtures, checks);
      reportFigures(st, `mixed storm (${database}, inject)`, { ...figures });
    });
  }
});
