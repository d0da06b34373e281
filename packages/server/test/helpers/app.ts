import type { TestContext } from 'node:test';
import { type Logger, pino } from 'pino';
import { createApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { type BuildDepsOptions, buildDeps, type Deps } from '../../src/deps.ts';
import type { Clock } from '../../src/shared/clock.ts';
import { openTestDb } from './database.ts';

/** Environment every test app starts from: fast sandbox, no rate limit, quiet logs. */
export const TEST_ENV: Record<string, string> = {
  LOG_LEVEL: 'silent',
  PURSE_RATE_LIMIT_PER_S: '0',
  // Suites send many bad tokens from 127.0.0.1 on purpose; test/http/limits.test.ts turns it on.
  PURSE_ADDRESS_FAILURE_LIMIT: '0',
  PURSE_SANDBOX_DELAY_MS: '20',
  PURSE_WORKER_INTERVAL_MS: '20',
  PURSE_ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
  // Off as on PostgreSQL (the embedded database's default is on): tests that refuse private URLs refuse loopback too.
  PURSE_SANDBOX_LOOPBACK_WEBHOOKS: 'false',
  PURSE_SECRET_KEY: 'test-secret-key-0123456789abcdef0123456789',
};

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** A pino logger or logger options; defaults to silent. */
  logger?: unknown;
  /** Implementations wired instead of production's: the negative controls' broken variants (test/negative-controls/). */
  wiring?: Pick<BuildDepsOptions, 'writes' | 'executeBatch' | 'claimOperation' | 'completeSession' | 'ownerRule'>;
}

export type TestApp = Awaited<ReturnType<typeof createApp>> & { deps: Deps };

/** Builds an app on a fresh copy of the test database; closed when the test (or suite) ends. */
export async function buildTestApp(t: Pick<TestContext, 'after'> | null, options: TestAppOptions = {}): Promise<TestApp> {
  const config: Config = loadConfig({ ...TEST_ENV, ...options.env });
  const deps = await buildDeps(config, {
    db: await openTestDb(),
    logger: (options.logger as Logger | undefined) ?? pino({ level: 'silent' }),
    ...(options.clock ? { clock: options.clock } : {}),
    ...options.wiring,
  });
  const app = (await createApp(deps)) as TestApp;
  app.deps = deps;
  await app.ready();
  t?.after(async () => {
    await app.close();
    await deps.close();
  });
  return app;
}

export interface TestMerchant {
  merchantId: string;
  clientId: string;
  clientSecret: string;
  token: string;
  auth: { authorization: string };
}

/** A merchant created through the service, with a fresh token from the real endpoint. */
export async function createTestMerchant(app: TestApp, name = 'Test merchant', livemode = false): Promise<TestMerchant> {
  const created = await app.deps.services.merchants.createMerchant({ name, livemode });
  if (!created.ok) throw new Error(created.error);
  const { merchant_id, client_id, client_secret } = created.value;
  const response = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { grant_type: 'client_credentials', client_id, client_secret },
  });
  if (response.statusCode !== 200) throw new Error(`token: ${response.statusCode} ${response.body}`);
  const token = response.json().access_token as string;
  return { merchantId: merchant_id, clientId: client_id, clientSecret: client_secret, token, auth: { authorization: `Bearer ${token}` } };
}

/** A clock tests can move. */
// The default start is the current minute's first millisecond: limits count in windows aligned to
// the epoch (a minute for token failures and per address, a second for the rate), so a test that
// moves the clock by less than a window never crosses into the next one by the wall clock's luck.
export function manualClock(
  start = new Date(Math.floor(Date.now() / 60_000) * 60_000),
): Clock & { advance(ms: number): void; set(date: Date): void } {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
    set(date: Date) {
      now = date.getTime();
    },
  };
}
