// The OpenAPI document the app serves, built on an in-memory database as the tests build the app:
// read by the OpenAPI lint and by the SDK's type generation.
import { PGlite } from '@electric-sql/pglite';
import { pino } from 'pino';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createPgliteDb } from '../src/db/db.ts';
import { buildDeps } from '../src/deps.ts';
import { TEST_ENV } from '../test/helpers/app.ts';

export async function generateDocument(): Promise<unknown> {
  const db = await createPgliteDb(new PGlite());
  const deps = await buildDeps(loadConfig(TEST_ENV), { db, logger: pino({ level: 'silent' }) });
  const app = await createApp(deps);
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    await deps.close();
  }
}
