import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { type AcquirerConfig, readAcquirerConfig } from './connectors/acquirer/config.ts';
import { type MpesaConfig, readMpesaConfig } from './connectors/mpesa/config.ts';
import { type MtnConfig, readMtnConfig } from './connectors/mtn/config.ts';
import { ConfigError, type Env } from './shared/env.ts';
import { present } from './shared/invariant.ts';

/** Everything the process reads from the environment, validated once and frozen. */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** PostgreSQL URL; null means the embedded PGlite database in `dataDir`. */
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  readonly dbPoolSize: number;
  /** Seconds a pooled PostgreSQL connection lives before it is replaced (its cached plans with it); 0: for ever. */
  readonly dbMaxLifetimeS: number;
  /** How often the statistics worker looks for tables that doubled since their last ANALYZE (db/statistics.ts); 0: never. */
  readonly analyzeIntervalMs: number;
  /** Server processes sharing the port (node:cluster); more than 1 needs PostgreSQL. */
  readonly processes: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** json (one object per line, for machines) or pretty (coloured lines, for a terminal: the default when stdout is one). */
  readonly logFormat: 'json' | 'pretty';
  readonly tokenTtlS: number;
  /**
   * The service key: root of every HMAC (secrets, tokens, card numbers) and of the webhook-secret
   * encryption. PURSE_SECRET_KEY or PURSE_SECRET_KEY_FILE; required on PostgreSQL. null (PGlite
   * only): a key file generated in DATA_DIR. Never stored in the database.
   */
  readonly secretKey: string | null;
  /** During a rotation: the old key, still accepted to verify and decrypt until `purse rekey`. */
  readonly previousSecretKey: string | null;
  readonly rateLimitPerS: number;
  /** Failed token requests per (client_id, source address) per minute before 429. */
  readonly tokenFailureLimit: number;
  /**
   * Failed or unauthenticated requests (bad client secrets, missing or invalid Bearer tokens) per
   * source address per minute before 429, checked before any database work; 0 turns it off.
   */
  readonly addressFailureLimit: number;
  /** Redis shared by every process and host for the limits above and the rate limit; null: per process. */
  readonly redisUrl: string | null;
  /** Prefix of every key Purse writes to Redis (PURSE_REDIS_KEY_PREFIX), so services can share one. */
  readonly redisKeyPrefix: string;
  /**
   * Proxies whose X-Forwarded-For is believed (addresses or CIDR ranges); empty: none, and the
   * source address is the connection's peer.
   */
  readonly trustedProxies: readonly string[];
  /** A dashboard session ends after this long without a request (PURSE_SESSION_IDLE_S). */
  readonly sessionIdleS: number;
  /** A dashboard session ends this long after sign-in whatever its activity (PURSE_SESSION_ABSOLUTE_S). */
  readonly sessionAbsoluteS: number;
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
  /** Sandbox merchants may register loopback webhook and callback URLs (development). */
  readonly sandboxLoopbackWebhooks: boolean;
  /** Seconds to wait before each retry of a webhook delivery; after the last, it is failed. */
  readonly webhookRetryScheduleS: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly workerEnabled: boolean;
  readonly workerIntervalMs: number;
  readonly bootstrapMerchant: boolean;
  /** Group commit's parallel lanes for money writes (db/group-commit.ts); 0 = every write alone; null = 1 on PGlite, 4 on PostgreSQL. */
  readonly groupCommitLanes: number | null;
  /** Most money writes in one group commit. */
  readonly groupCommitMaxBatch: number;
  /** Country calling code → mobile-money network, for numbers whose provider is not named. */
  readonly mobileMoneyRoutes: readonly (readonly [string, string])[];
  /** PURSE_PUBLIC_URL without a trailing slash: where clients and providers reach this service; null when unset. */
  readonly publicBaseUrl: string | null;
  /** MTN MoMo Open API credentials; null when no PURSE_MTN_* variable is set (MTN off). */
  readonly mtn: MtnConfig | null;
  /** M-Pesa Daraja credentials; null when no PURSE_MPESA_* variable is set (M-Pesa off). */
  readonly mpesa: MpesaConfig | null;
  /** The card acquirer of live merchants (PURSE_CARD_ACQUIRER_*); null: live card payments fail provider_error. */
  readonly cardAcquirer: AcquirerConfig | null;
}

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

function redisUrl(env: Env): string | null {
  const raw = env.PURSE_REDIS_URL ?? '';
  if (raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PURSE_REDIS_URL must be a URL such as redis://127.0.0.1:6379');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new ConfigError('PURSE_REDIS_URL must start with redis:// or rediss://');
  return raw;
}

/** PURSE_TRUSTED_PROXIES: comma-separated IP addresses or CIDR ranges (10.0.0.0/8, ::1). */
function trustedProxies(env: Env): string[] {
  const raw = (env.PURSE_TRUSTED_PROXIES ?? '').trim();
  if (raw === '') return [];
  return raw.split(',').map((entry) => {
    const value = entry.trim();
    const [address, bits, extra] = value.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 4 ? 32 : 128;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !bitsOk || extra !== undefined) {
      throw new ConfigError(`PURSE_TRUSTED_PROXIES: "${value}" is not an IP address or CIDR range (such as 10.0.0.0/8)`);
    }
    return value;
  });
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

const DEFAULT_MOBILE_MONEY_ROUTES = '254:mpesa,256:mtn,233:mtn,250:mtn,260:mtn,237:mtn,225:mtn,229:mtn';

function mobileMoneyRoutes(env: Env): [string, string][] {
  const raw = env.PURSE_MOBILE_MONEY_ROUTES ?? DEFAULT_MOBILE_MONEY_ROUTES;
  const out: [string, string][] = [];
  for (const pair of raw.split(',').filter((p) => p.trim() !== '')) {
    const match = /^\s*(\d{1,4}):([a-z0-9_-]{1,32})\s*$/.exec(pair);
    if (!match) throw new ConfigError(`PURSE_MOBILE_MONEY_ROUTES: "${pair}" must look like 256:mtn`);
    out.push([present(match[1], 'code'), present(match[2], 'network')]);
  }
  return out;
}

function logFormat(env: NodeJS.ProcessEnv): Config['logFormat'] {
  const raw = env.PURSE_LOG_FORMAT || (process.stdout.isTTY ? 'pretty' : 'json');
  if (raw !== 'json' && raw !== 'pretty') throw new ConfigError('PURSE_LOG_FORMAT must be json or pretty');
  return raw;
}

function publicBaseUrl(env: NodeJS.ProcessEnv): string | null {
  const raw = env.PURSE_PUBLIC_URL ?? '';
  if (raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PURSE_PUBLIC_URL must be an absolute http(s) URL, such as https://pay.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError('PURSE_PUBLIC_URL must be an http or https URL');
  return raw.replace(/\/+$/, '');
}

/** How to make a key, said wherever one is missing. */
export const MAKE_KEY_HINT =
  "make one with `openssl rand -base64 48` (or `node -e \"console.log(require('crypto').randomBytes(48).toString('base64'))\"`)";

/** A key from NAME or NAME_FILE (a path to a file holding it, trailing newline ignored). */
function keyFrom(env: Env, name: string): string | null {
  const direct = env[name] || null;
  const file = env[`${name}_FILE`] || null;
  if (direct !== null && file !== null) throw new ConfigError(`set ${name} or ${name}_FILE, not both`);
  let key = direct;
  if (file !== null) {
    try {
      key = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (key !== null && key.length < 32) throw new ConfigError(`${name} must be at least 32 characters; ${MAKE_KEY_HINT}`);
  return key;
}

export interface LoadConfigOptions {
  /** The one command that runs without a key on PostgreSQL (`purse key export-legacy`). */
  keyOptional?: boolean;
}

export function loadConfig(env: Env = process.env, options: LoadConfigOptions = {}): Config {
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const secretKey = keyFrom(env, 'PURSE_SECRET_KEY');
  const previousSecretKey = keyFrom(env, 'PURSE_SECRET_KEY_PREVIOUS');
  if (databaseUrl !== null && secretKey === null && !options.keyOptional) {
    throw new ConfigError(`PostgreSQL needs PURSE_SECRET_KEY (or PURSE_SECRET_KEY_FILE, a path to a file holding it); ${MAKE_KEY_HINT}`);
  }
  if (previousSecretKey !== null && secretKey === null && databaseUrl !== null) {
    throw new ConfigError('PURSE_SECRET_KEY_PREVIOUS needs PURSE_SECRET_KEY (the new key)');
  }
  if (previousSecretKey !== null && previousSecretKey === secretKey)
    throw new ConfigError('PURSE_SECRET_KEY_PREVIOUS equals PURSE_SECRET_KEY');
  const defaultMax = env.PURSE_MAX_AMOUNT_DEFAULT || '100000000';
  if (!/^\d{1,15}$/.test(defaultMax)) throw new ConfigError('PURSE_MAX_AMOUNT_DEFAULT must be a whole number of major units');
  return Object.freeze({
    port: int(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    dataDir: resolve(env.DATA_DIR || './.data'),
    dbPoolSize: int(env, 'PURSE_DB_POOL_SIZE', 16, 1, 200),
    dbMaxLifetimeS: int(env, 'PURSE_DB_MAX_LIFETIME_S', 300, 0, 86_400),
    analyzeIntervalMs: int(env, 'PURSE_ANALYZE_INTERVAL_MS', 2_000, 0, 3_600_000),
    processes: processes(env, databaseUrl),
    logLevel,
    logFormat: logFormat(env),
    tokenTtlS: int(env, 'PURSE_TOKEN_TTL_S', 3600, 1, 86400),
    secretKey,
    previousSecretKey,
    rateLimitPerS: int(env, 'PURSE_RATE_LIMIT_PER_S', 100, 0, 1_000_000),
    tokenFailureLimit: int(env, 'PURSE_TOKEN_FAILURE_LIMIT', 10, 1, 1_000_000),
    addressFailureLimit: int(env, 'PURSE_ADDRESS_FAILURE_LIMIT', 100, 0, 1_000_000),
    redisUrl: redisUrl(env),
    redisKeyPrefix: env.PURSE_REDIS_KEY_PREFIX || 'purse:',
    trustedProxies: Object.freeze(trustedProxies(env)),
    sessionIdleS: int(env, 'PURSE_SESSION_IDLE_S', 1800, 60, 86_400),
    sessionAbsoluteS: int(env, 'PURSE_SESSION_ABSOLUTE_S', 43_200, 300, 30 * 86_400),
    mobileMoneyExpiryS: int(env, 'PURSE_MOBILE_MONEY_EXPIRY_S', 300, 1, 86400),
    sandboxDelayMs: int(env, 'PURSE_SANDBOX_DELAY_MS', 2000, 0, 600_000),
    sandboxFaults: bool(env, 'PURSE_SANDBOX_FAULTS', false),
    // At most 10 s: a request holds its charge's lease (15 s) while it waits for the provider.
    providerTimeoutMs: int(env, 'PURSE_PROVIDER_TIMEOUT_MS', 10_000, 50, 10_000),
    currencies: Object.freeze(currencies(env)),
    maxAmounts: Object.freeze(maxAmounts(env)),
    defaultMaxAmount: defaultMax,
    allowPrivateWebhookUrls: bool(env, 'PURSE_ALLOW_PRIVATE_WEBHOOK_URLS', false),
    // On by default on the embedded database (a developer's machine), off on PostgreSQL.
    sandboxLoopbackWebhooks: bool(env, 'PURSE_SANDBOX_LOOPBACK_WEBHOOKS', databaseUrl === null),
    webhookRetryScheduleS: Object.freeze(retrySchedule(env)),
    webhookTimeoutMs: int(env, 'PURSE_WEBHOOK_TIMEOUT_MS', 10_000, 10, 60_000),
    workerEnabled: bool(env, 'PURSE_WORKER', true),
    workerIntervalMs: int(env, 'PURSE_WORKER_INTERVAL_MS', 500, 5, 60_000),
    bootstrapMerchant: bool(env, 'PURSE_BOOTSTRAP_MERCHANT', true),
    groupCommitLanes: env.PURSE_GROUP_COMMIT_LANES === undefined ? null : int(env, 'PURSE_GROUP_COMMIT_LANES', 4, 0, 15),
    groupCommitMaxBatch: int(env, 'PURSE_GROUP_COMMIT_MAX_BATCH', 64, 1, 1000),
    mobileMoneyRoutes: Object.freeze(mobileMoneyRoutes(env)),
    mtn: readMtnConfig(env),
    mpesa: readMpesaConfig(env),
    cardAcquirer: readAcquirerConfig(env),
    publicBaseUrl: publicBaseUrl(env),
  });
}
