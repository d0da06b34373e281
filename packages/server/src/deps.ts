import { createHmac } from 'node:crypto';
import { type Logger, pino } from 'pino';
import { createApiKeyService } from './api-keys/service.ts';
import { createAuditService } from './audit/service.ts';
import { createBalanceTransactionService } from './balance/service.ts';
import { authenticationUrls, publicOrigin } from './charges/authentication.ts';
import { createCardAuthentication } from './charges/card-authentication.ts';
import { type CardOperations, createCardOperations } from './charges/operations.ts';
import { type ChargeService, createChargeService } from './charges/service.ts';
import { createSettlement } from './charges/settlement.ts';
import { claimOperation } from './charges/store/card-states.ts';
import { createChargeReader } from './charges/store/read.ts';
import { createSettlementWorker } from './charges/worker.ts';
import { createCheckoutAttempts } from './checkout/attempts.ts';
import { createCheckoutService } from './checkout/service.ts';
import { completeSession } from './checkout/store.ts';
import { pageTokens } from './checkout/tokens.ts';
import { createCheckoutWorker } from './checkout/worker.ts';
import type { Config } from './config.ts';
import { createAcquirerConnector } from './connectors/acquirer/connector.ts';
import type { Connector } from './connectors/connector.ts';
import { createMpesaConnector } from './connectors/mpesa/connector.ts';
import { createMtnConnector } from './connectors/mtn/connector.ts';
import { createConnectorRegistry } from './connectors/registry.ts';
import { createSandboxConnector } from './connectors/sandbox/connector.ts';
import { createDb, type Db, type DbHandle } from './db/db.ts';
import { type BatchExecutor, createGroupCommit } from './db/group-commit.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createStatisticsWorker } from './db/statistics.ts';
import { createEventService } from './events/service.ts';
import { type AddressFailureLimit, createAddressFailureLimit } from './limits/address.ts';
import { localCounters, redisCounters, type WindowCounters } from './limits/counters.ts';
import { createMerchantService } from './merchants/service.ts';
import { type MoneyWrites, moneyWrites } from './money-writes.ts';
import { createOAuthService } from './oauth/service.ts';
import { createMetrics, type Metrics } from './ops/metrics.ts';
import { createOutflowService } from './outflows/service.ts';
import { createOutflowSettlement } from './outflows/settlement.ts';
import { createOutflowWorker } from './outflows/worker.ts';
import { createPayPages } from './pay/service.ts';
import { createPaymentLinkService } from './payment-links/service.ts';
import { createProviderCallbackService } from './provider-callbacks/service.ts';
import { createPurgeWorker } from './purge.ts';
import { createReconciliation } from './reconcile/service.ts';
import { createSandboxControls } from './sandbox-controls/service.ts';
import { resolveServiceKeys } from './service-key.ts';
import { type Clock, systemClock } from './shared/clock.ts';
import { loggerOptions } from './shared/logging.ts';
import { createTransferService } from './transfers/service.ts';
import { createUsersService } from './users/service.ts';
import type { OwnerRule } from './users/store.ts';
import { createWalletService } from './wallets/service.ts';
import { createWebhookService } from './webhooks/service.ts';
import { createDeliveryWorker } from './webhooks/worker.ts';

/** The HMAC key of a service key (PURSE_SECRET_KEY); a test acting as the sandbox provider derives it too. */
export function deriveHashKey(secretKey: string): Buffer {
  return createHmac('sha256', secretKey).update('purse-hash-key-v1').digest();
}

/** The webhook-secret encryption key of a hash key. */
export function deriveEncryptionKey(hashKey: Buffer): Buffer {
  return createHmac('sha256', hashKey).update('purse-encryption-key-v1').digest();
}

export interface BuildDepsOptions {
  clock?: Clock;
  /**
   * Other implementations of the money writes or of the group commit's batch executor: the
   * tests' broken-on-purpose variants, which prove their checks can fail. Production wires none.
   */
  writes?: Partial<MoneyWrites>;
  executeBatch?: BatchExecutor;
  /** How a capture or cancel is recorded before the acquirer is called (store/card-states.ts claimOperation by default). */
  claimOperation?: typeof claimOperation;
  /** How a checkout session is completed (checkout/store.ts completeSession by default). */
  completeSession?: typeof completeSession;
  /** How the last-owner rule's role changes and removals are written (users/store.ts ownerRule by default). */
  ownerRule?: OwnerRule;
  /** An already opened database (tests); otherwise the configured one is opened. */
  db?: DbHandle;
  logger?: Logger;
}

/**
 * The group commit the money writes run through, and the writes (production's, unless the
 * options wire others). Under load writes share commits (db/group-commit.ts): one lane on the
 * single-connection embedded database, four on PostgreSQL (a quarter of the default pool).
 */
function moneyWriting(db: DbHandle, config: Config, metrics: Metrics, options: BuildDepsOptions) {
  const groupCommit = createGroupCommit(db, {
    lanes: config.groupCommitLanes ?? (db.kind === 'pglite' ? 1 : 4),
    maxBatch: config.groupCommitMaxBatch,
    onBatch: (size, fellBack) => {
      metrics.observeBatch(size, fellBack);
      metrics.observeDatabaseAvailable();
    },
    onConflict: (error) => metrics.observeConflict(String((error as { code?: unknown }).code)),
    ...(options.executeBatch ? { execute: options.executeBatch } : {}),
  });
  const writes: MoneyWrites = { ...moneyWrites, ...options.writes };
  return { groupCommit, writes };
}

/**
 * Token issuance and checks, the services that change credentials (they tell this process's token
 * cache at once), and the audit log they write to.
 */
function credentialServices(
  db: DbHandle,
  config: Config,
  clock: Clock,
  keys: { hashKey: Buffer; previousHashKey: Buffer | null; encryptionKey: readonly Buffer[] },
  limits: { counters: WindowCounters; addressLimit: AddressFailureLimit },
  { ownerRule }: Pick<BuildDepsOptions, 'ownerRule'>,
) {
  const { hashKey } = keys;
  const { sessionIdleS, sessionAbsoluteS } = config;
  const oauth = createOAuthService({
    db: db.db,
    clock,
    ...keys,
    tokenTtlS: config.tokenTtlS,
    sessionIdleS,
    failureLimit: config.tokenFailureLimit,
    ...limits,
  });
  const forget = (clientId: string) => oauth.forgetClient(clientId);
  const merchants = createMerchantService({ db: db.db, clock, hashKey, onCredentialsChanged: forget });
  const apiKeys = createApiKeyService({ db: db.db, clock, hashKey, onCredentialsChanged: forget });
  const users = createUsersService({
    db: db.db,
    clock,
    hashKey,
    encryptionKey: keys.encryptionKey,
    ...limits,
    sessionIdleS,
    sessionAbsoluteS,
    onSessionsChanged: oauth.forgetTokens,
    ...(ownerRule ? { ownerRule } : {}),
  });
  return { oauth, merchants, apiKeys, users, audit: createAuditService({ db: db.db }) };
}

/**
 * Every connector, once: each declares the routes it serves. A provider is its folder under
 * connectors/ plus its line here.
 */
function connectorsOf(config: Config, hashKey: Buffer, clock: Clock, sandboxConnector: Connector): Connector[] {
  return [
    sandboxConnector,
    ...(config.mtn ? [createMtnConnector({ config: config.mtn, hashKey })] : []),
    ...(config.mpesa ? [createMpesaConnector({ config: config.mpesa, hashKey, nowMs: () => clock.now().getTime() })] : []),
    ...(config.cardAcquirer ? [createAcquirerConnector({ config: config.cardAcquirer })] : []),
  ];
}

/** The built-in sandbox provider, serving every means of sandbox merchants. */
function sandboxOf(db: DbHandle, config: Config, clock: Clock, hashKey: Buffer) {
  return createSandboxConnector({
    db: db.db,
    // The simulated provider's books batch their own writes, apart from Purse's money writes.
    writes: createGroupCommit(db, {
      lanes: config.groupCommitLanes === 0 ? 0 : db.kind === 'pglite' ? 1 : 2,
      maxBatch: config.groupCommitMaxBatch,
    }),
    clock,
    delayMs: config.sandboxDelayMs,
    hashKey,
    faults: config.sandboxFaults,
    origin: publicOrigin(config),
  });
}

/** Hosted checkout: its sessions, the page's attempts (payments through the charges' own path), payment links, and its worker. */
function hostedCheckout(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  hashKey: Buffer;
  counters: WindowCounters;
  charges: ChargeService;
  cardOperations: CardOperations;
  log: Logger;
  completeSession: typeof completeSession;
}) {
  const { db, clock, config, hashKey } = deps;
  const tokens = pageTokens(hashKey);
  const checkout = createCheckoutService({
    db,
    clock,
    config,
    hashKey,
    tokens,
    origin: publicOrigin(config),
    complete: deps.completeSession,
  });
  const checkoutAttempts = createCheckoutAttempts({ ...deps, checkout });
  const worker = createCheckoutWorker({ db, clock, checkout, log: deps.log, intervalMs: config.workerIntervalMs });
  const paymentLinks = createPaymentLinkService({ db, clock, config, tokens, origin: publicOrigin(config), checkout });
  const payPages = createPayPages({ checkout, attempts: checkoutAttempts, hashKey });
  return { services: { checkout, checkoutAttempts, payPages, paymentLinks }, worker };
}

/** The one place that constructs the database, clock and services. */
export async function buildDeps(config: Config, options: BuildDepsOptions = {}) {
  const db = options.db ?? (await createDb(config));
  await migrateToLatest(db.db);
  const { clock = systemClock, claimOperation: claim = claimOperation, completeSession: complete = completeSession } = options;
  const logger = options.logger ?? pino(loggerOptions(config.logLevel, config.logFormat));
  let keys;
  try {
    keys = await resolveServiceKeys(db.db, config, logger);
  } catch (error) {
    if (!options.db) await db.close();
    throw error;
  }
  const hashKey = deriveHashKey(keys.current);
  // During a rotation (PURSE_SECRET_KEY_PREVIOUS): still accepted to verify and decrypt.
  const previousHashKey = keys.previous === null ? null : deriveHashKey(keys.previous);
  const metrics = createMetrics({ defaultMetrics: true });
  // Every limit counts here: in Redis when configured (shared by processes and hosts), else per process.
  const nowMs = () => clock.now().getTime();
  const counters = config.redisUrl
    ? redisCounters({ url: config.redisUrl, log: logger, nowMs, prefix: `${config.redisKeyPrefix}limit:` })
    : localCounters(nowMs);
  const addressLimit = createAddressFailureLimit(counters, config.addressFailureLimit);
  // The first encrypts; both decrypt while a rotation is under way.
  const encryptionKey: readonly Buffer[] = [
    deriveEncryptionKey(hashKey),
    ...(previousHashKey ? [deriveEncryptionKey(previousHashKey)] : []),
  ];
  const access = credentialServices(db, config, clock, { hashKey, previousHashKey, encryptionKey }, { counters, addressLimit }, options);
  // The 3-D Secure URLs of card payments: Purse's own, which send the payer to the acquirer and back.
  const authentication = authenticationUrls(publicOrigin(config), hashKey);
  const sandboxConnector = sandboxOf(db, config, clock, hashKey);
  const registry = createConnectorRegistry(connectorsOf(config, hashKey, clock, sandboxConnector));
  const { groupCommit, writes } = moneyWriting(db, config, metrics, options);
  // What both settlements (charges; refunds and payouts) take.
  const settling = { db: db.db, clock, registry, log: logger, providerTimeoutMs: config.providerTimeoutMs };
  const settlement = createSettlement({ ...settling, groupCommit, authentication });
  const outflowSettlement = createOutflowSettlement(settling);
  const reconciliation = createReconciliation({ db: db.db, clock, registry, settlement, outflowSettlement });
  const providerCallbacks = createProviderCallbackService({ db: db.db, registry, settlement, outflowSettlement, log: logger });
  // GETs of charges and refunds' payment lookups share queries under load (db/batched-read.ts).
  const chargeReader = createChargeReader(db.pool);
  // What every money service takes.
  const money = { db: db.db, groupCommit, writes, clock, config, hashKey };
  const charges = createChargeService({ ...money, reader: chargeReader, registry, settlement });
  const cardOperations = createCardOperations({ db: db.db, clock, config, registry, settlement, claim });
  const cardAuthentication = createCardAuthentication({ db: db.db, settlement, urls: authentication, log: logger });
  const wallets = createWalletService({ db: db.db, clock, config, hashKey });
  const transfers = createTransferService(money);
  const outflows = createOutflowService({ ...money, chargeReader, registry, settlement: outflowSettlement });
  const balanceTransactions = createBalanceTransactionService({ db, config });
  const sandboxControls = createSandboxControls({ db: db.db, sandbox: sandboxConnector, settlement, outflowSettlement });
  const worker = createSettlementWorker({ db: db.db, clock, settlement, log: logger, intervalMs: config.workerIntervalMs });
  const outflowWorker = createOutflowWorker({
    db: db.db,
    clock,
    settlement: outflowSettlement,
    log: logger,
    intervalMs: config.workerIntervalMs,
  });
  const events = createEventService({ db: db.db, clock });
  const webhooks = createWebhookService({ db: db.db, clock, config, encryptionKey });
  const deliveryWorker = createDeliveryWorker({ db: db.db, clock, config, encryptionKey, log: logger });
  const hosted = hostedCheckout({ ...money, counters, charges, cardOperations, log: logger, completeSession: complete });
  const purgeWorker = createPurgeWorker({ db: db.db, clock, log: logger, config });
  const statisticsWorker = createStatisticsWorker({ db: db.db, log: logger, intervalMs: config.analyzeIntervalMs });
  return {
    config,
    db,
    clock,
    metrics,
    groupCommit,
    writes,
    hashKey,
    previousHashKey,
    logger,
    registry,
    sandboxConnector,
    settlement,
    outflowSettlement,
    worker,
    outflowWorker,
    deliveryWorker,
    purgeWorker,
    checkoutWorker: hosted.worker,
    statisticsWorker,
    encryptionKey,
    limits: { counters, addressLimit },
    services: {
      ...access,
      charges,
      cardOperations,
      cardAuthentication,
      wallets,
      transfers,
      outflows,
      balanceTransactions,
      sandboxControls,
      events,
      webhooks,
      providerCallbacks,
      reconciliation,
      ...hosted.services,
    },
    async close(): Promise<void> {
      for (const each of [worker, outflowWorker, deliveryWorker, purgeWorker, hosted.worker, statisticsWorker]) await each.stop();
      // Writes still queued in the group commit (a request whose client hung up mid-flight) run
      // before the pool ends, instead of failing on a closed pool.
      await groupCommit.idle();
      await counters.close();
      await db.close();
    },
  };
}

export type Deps = Awaited<ReturnType<typeof buildDeps>>;
