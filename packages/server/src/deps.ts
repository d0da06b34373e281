import { createHmac, randomBytes } from 'node:crypto';
import { type Logger, pino } from 'pino';
import { createChargeService } from './charges/service.ts';
import { createSettlement } from './charges/settlement.ts';
import { createSettlementWorker } from './charges/worker.ts';
import type { Config } from './config.ts';
import { createConnectorRegistry } from './connectors/registry.ts';
import { createSandboxConnector } from './connectors/sandbox/connector.ts';
import { createDb, type Db, type DbHandle } from './db/db.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createEventService } from './events/service.ts';
import { createMerchantService } from './merchants/service.ts';
import { createOAuthService } from './oauth/service.ts';
import { createMetrics } from './ops/metrics.ts';
import { createProviderCallbackService } from './provider-callbacks/service.ts';
import { createSandboxControls } from './sandbox-controls/service.ts';
import { type Clock, systemClock } from './shared/clock.ts';
import { loggerOptions } from './shared/logging.ts';
import { createTransferService } from './transfers/service.ts';
import { createWalletService } from './wallets/service.ts';
import { createWebhookService } from './webhooks/service.ts';
import { createDeliveryWorker } from './webhooks/worker.ts';

/**
 * The key behind every HMAC (secrets, tokens, card fingerprints). PURSE_SECRET_KEY in production;
 * without it a random key is generated once and kept in the database, so every process of one
 * deployment agrees (insert-if-absent, then read: the database decides the winner).
 */
async function loadHashKey(db: Db, configured: string | null): Promise<Buffer> {
  return deriveHashKey(configured ?? (await storedKey(db)));
}

/** The HMAC key of a service key (PURSE_SECRET_KEY); a test acting as the sandbox provider derives it too. */
export function deriveHashKey(secretKey: string): Buffer {
  return createHmac('sha256', secretKey).update('purse-hash-key-v1').digest();
}

async function storedKey(db: Db): Promise<string> {
  await db
    .insertInto('settings')
    .values({ key: 'generated_secret_key', value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('settings').select('value').where('key', '=', 'generated_secret_key').executeTakeFirstOrThrow();
  return row.value;
}

export interface BuildDepsOptions {
  clock?: Clock;
  /** An already opened database (tests); otherwise the configured one is opened. */
  db?: DbHandle;
  logger?: Logger;
}

/** The one place that constructs the database, clock and services. */
export async function buildDeps(config: Config, options: BuildDepsOptions = {}) {
  const db = options.db ?? (await createDb(config));
  await migrateToLatest(db.db);
  const clock = options.clock ?? systemClock;
  const hashKey = await loadHashKey(db.db, config.secretKey);
  const metrics = createMetrics({ defaultMetrics: true });
  const oauth = createOAuthService({
    db: db.db,
    clock,
    hashKey,
    tokenTtlS: config.tokenTtlS,
    failureLimit: config.tokenFailureLimit,
  });
  const merchants = createMerchantService({ db: db.db, clock, hashKey, onCredentialsChanged: (clientId) => oauth.forgetClient(clientId) });
  const logger = options.logger ?? pino(loggerOptions(config.logLevel));
  const sandboxConnector = createSandboxConnector({
    db: db.db,
    clock,
    delayMs: config.sandboxDelayMs,
    hashKey,
    faults: config.sandboxFaults,
  });
  // Every connector, once: each declares the routes it serves. A provider is its folder under
  // connectors/ plus its line here.
  const registry = createConnectorRegistry([sandboxConnector]);
  const settlement = createSettlement({ db: db.db, clock, registry, log: logger, providerTimeoutMs: config.providerTimeoutMs });
  const providerCallbacks = createProviderCallbackService({ db: db.db, registry, settlement, log: logger });
  const charges = createChargeService({ db: db.db, clock, config, hashKey, registry, settlement });
  const wallets = createWalletService({ db: db.db, clock, config, hashKey });
  const transfers = createTransferService({ db: db.db, clock, config, hashKey });
  const sandboxControls = createSandboxControls({ db: db.db, sandbox: sandboxConnector, settlement });
  const worker = createSettlementWorker({ db: db.db, clock, settlement, log: logger, intervalMs: config.workerIntervalMs });
  const encryptionKey = createHmac('sha256', hashKey).update('purse-encryption-key-v1').digest();
  const events = createEventService({ db: db.db, clock });
  const webhooks = createWebhookService({ db: db.db, clock, config, encryptionKey });
  const deliveryWorker = createDeliveryWorker({ db: db.db, clock, config, encryptionKey, log: logger });
  return {
    config,
    db,
    clock,
    metrics,
    hashKey,
    logger,
    registry,
    sandboxConnector,
    settlement,
    worker,
    deliveryWorker,
    encryptionKey,
    services: { merchants, oauth, charges, wallets, transfers, sandboxControls, events, webhooks, providerCallbacks },
    async close(): Promise<void> {
      await worker.stop();
      await deliveryWorker.stop();
      await db.close();
    },
  };
}

export type Deps = Awaited<ReturnType<typeof buildDeps>>;
