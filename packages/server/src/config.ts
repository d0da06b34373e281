import { resolve } from 'node:path';
import { present } from './shared/invariant.ts';

/** Everything the process reads from the environment, validated once and frozen. */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** PostgreSQL URL; null means the embedded PGlite database in `dataDir`. */
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  readonly dbPoolSize: number;
  /** Server processes sharing the port (node:cluster); more than 1 needs PostgreSQL. */
  readonly processes: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly tokenTtlS: number;
  /** Key for HMACs of secrets, tokens and card numbers; null: generated and kept in the database. */
  readonly secretKey: string | null;
  readonly rateLimitPerS: number;
  readonly tokenFailureLimit: number;
  readonly mobileMoneyExpiryS: number;
  readonly sandboxDelayMs: number;
  /**
   * Fault-injecting sandbox (test suites only): extra phone-number suffixes make the sandbox
   * provider lose its answer after processing, or never settle. Off in every normal run.
   */
  readonly sandboxFaults: boolean;
  /** How long a provider call may take before its outcome counts as unknown (pending). */
  readonly providerTimeoutMs: number;
  readonly currencies: readonly string[];
  /** Per-currency maximum amount, in major units as a decimal string. */
  readonly maxAmounts: Readonly<Record<string, string>>;
  readonly defaultMaxAmount: string;
  readonly allowPrivateWebhookUrls: boolean;
  /** Seconds to wait before each retry of a webhook delivery; after the last, it is failed. */
  readonly webhookRetryScheduleS: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly workerEnabled: boolean;
  readonly workerIntervalMs: number;
  readonly bootstrapMerchant: boolean;
  /**
   * Negative control for the double-spend test ONLY: debits wallets with an unlocked
   * read-modify-write, which loses updates under concurrency. Never set it anywhere else.
   */
  readonly negativeControlRmwDebit: boolean;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const DEFAULT_CURRENCIES = 'KES,UGX,TZS,RWF,GHS,NGN,ZMW,XOF,XAF,ZAR,USD,EUR,GBP';

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function currencies(env: Env): string[] {
  const list = (env.PURSE_CURRENCIES || DEFAULT_CURRENCIES).split(',').map((c) => c.trim());
  for (const code of list) {
    if (!/^[A-Z]{3}$/.test(code)) throw new ConfigError(`PURSE_CURRENCIES: "${code}" is not an ISO 4217 code`);
    try {
      new Intl.NumberFormat('en', { style: 'currency', currency: code });
    } catch {
      throw new ConfigError(`PURSE_CURRENCIES: "${code}" is not a currency this runtime knows`);
    }
  }
  return list;
}

function maxAmounts(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  const raw = env.PURSE_MAX_AMOUNTS ?? '';
  for (const pair of raw.split(',').filter((p) => p.trim() !== '')) {
    const match = /^\s*([A-Z]{3})=(\d{1,15})\s*$/.exec(pair);
    if (!match) throw new ConfigError(`PURSE_MAX_AMOUNTS: "${pair}" must look like KES=1000000`);
    out[present(match[1], 'key')] = present(match[2], 'value');
  }
  return out;
}

// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 20 h: about three days in all.
const DEFAULT_RETRY_SCHEDULE = '5,300,1800,7200,18000,36000,50400,72000,72000';

function retrySchedule(env: Env): number[] {
  const raw = env.PURSE_WEBHOOK_RETRY_SCHEDULE_S || DEFAULT_RETRY_SCHEDULE;
  const list = raw.split(',').map((s) => s.trim());
  if (list.length === 0 || list.length > 50 || list.some((s) => !/^\d+(\.\d+)?$/.test(s))) {
    throw new ConfigError('PURSE_WEBHOOK_RETRY_SCHEDULE_S must be a comma-separated list of seconds, e.g. 5,300,1800');
  }
  return list.map(Number);
}

function processes(env: Env, databaseUrl: string | null): number {
  const n = int(env, 'PURSE_PROCESSES', 1, 1, 64);
  if (n > 1 && databaseUrl === null)
    throw new ConfigError('PURSE_PROCESSES above 1 needs DATABASE_URL: the embedded database admits one process');
  return n;
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const secretKey = env.PURSE_SECRET_KEY || null;
  if (secretKey !== null && secretKey.length < 32) throw new ConfigError('PURSE_SECRET_KEY must be at least 32 characters');
  const defaultMax = env.PURSE_MAX_AMOUNT_DEFAULT || '100000000';
  if (!/^\d{1,15}$/.test(defaultMax)) throw new ConfigError('PURSE_MAX_AMOUNT_DEFAULT must be a whole number of major units');
  return Object.freeze({
    port: int(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    dataDir: resolve(env.DATA_DIR || './.data'),
    dbPoolSize: int(env, 'PURSE_DB_POOL_SIZE', 16, 1, 200),
    processes: processes(env, databaseUrl),
    logLevel,
    tokenTtlS: int(env, 'PURSE_TOKEN_TTL_S', 3600, 1, 86400),
    secretKey,
    rateLimitPerS: int(env, 'PURSE_RATE_LIMIT_PER_S', 100, 0, 1_000_000),
    tokenFailureLimit: int(env, 'PURSE_TOKEN_FAILURE_LIMIT', 10, 1, 1_000_000),
    mobileMoneyExpiryS: int(env, 'PURSE_MOBILE_MONEY_EXPIRY_S', 300, 1, 86400),
    sandboxDelayMs: int(env, 'PURSE_SANDBOX_DELAY_MS', 2000, 0, 600_000),
    sandboxFaults: bool(env, 'PURSE_SANDBOX_FAULTS', false),
    // At most 10 s: a request holds its charge's lease (15 s) while it waits for the provider.
    providerTimeoutMs: int(env, 'PURSE_PROVIDER_TIMEOUT_MS', 10_000, 50, 10_000),
    currencies: Object.freeze(currencies(env)),
    maxAmounts: Object.freeze(maxAmounts(env)),
    defaultMaxAmount: defaultMax,
    allowPrivateWebhookUrls: bool(env, 'PURSE_ALLOW_PRIVATE_WEBHOOK_URLS', false),
    webhookRetryScheduleS: Object.freeze(retrySchedule(env)),
    webhookTimeoutMs: int(env, 'PURSE_WEBHOOK_TIMEOUT_MS', 10_000, 10, 60_000),
    workerEnabled: bool(env, 'PURSE_WORKER', true),
    workerIntervalMs: int(env, 'PURSE_WORKER_INTERVAL_MS', 500, 5, 60_000),
    bootstrapMerchant: bool(env, 'PURSE_BOOTSTRAP_MERCHANT', true),
    negativeControlRmwDebit: bool(env, 'PURSE_NEGATIVE_CONTROL_RMW_DEBIT', false),
  });
}
