// What each `purse` command does. Loaded only when a command runs (commands.ts imports it on
// use), so the table, the usage and the early refusals need none of the service's modules.
import { operatorEntry } from '../audit/entry.ts';
import { withAudit } from '../audit/store.ts';
import type { Deps } from '../deps.ts';
import type { MerchantProfile } from '../merchants/service.ts';
import { legacyStoredKey } from '../service-key.ts';
import { ApiError } from '../shared/errors.ts';
import { isRole, USER_ROLES } from '../users/roles.ts';
import { rekeyWebhookSecrets, revealMerchantSigningSecret, rotateMerchantSigningSecret } from '../webhooks/secrets.ts';
import { CliError } from './errors.ts';
import { credentialsJson, credentialsText, jsonLine, merchantLine, merchantTable } from './format.ts';
import { listen } from './listen.ts';
import { storedListenSecret, WHSEC } from './listen-secret.ts';
import { describeDatabase, migrateDatabase, withDb, withDeps } from './session.ts';
import type { CommandInput } from './types.ts';
import { PURSE } from './usage.ts';

function notFound(id: string): CliError {
  return new CliError(`No merchant with id ${id}. List merchants with: ${PURSE} merchant list`);
}

export async function createMerchant({ config, values, write }: CommandInput): Promise<void> {
  const name = values.name;
  if (typeof name !== 'string') throw new CliError('merchant create needs --name NAME');
  const livemode = values.live === true;
  await withDeps(config, async (deps) => {
    const created = await deps.services.merchants.createMerchant({ name, livemode });
    if (!created.ok) throw new CliError('--name must be 1 to 200 characters (not only spaces)');
    if (values.json) return write(credentialsJson(created.value));
    write(credentialsText(`Created ${livemode ? 'live' : 'sandbox'} merchant "${name.trim()}".`, created.value));
    const webhookSecret = await revealMerchantSigningSecret(deps.db.db, deps.encryptionKey, deps.clock, created.value.merchant_id);
    write(
      `Webhook signing secret for callback_url deliveries (also: ${PURSE} merchant webhook-secret ID):\n  webhook_secret: ${webhookSecret}\n`,
    );
  });
}

/** `purse audit verify`: every chain recomputed; a broken one is named with its first broken record, and exits 1. */
export async function verifyAudit({ config, values, write }: CommandInput): Promise<void> {
  const only = typeof values.merchant === 'string' ? [values.merchant] : undefined;
  const verdicts = await withDeps(config, (deps) => deps.services.audit.verify(only));
  if (values.json) write(jsonLine(verdicts));
  else
    for (const v of verdicts)
      write(
        v.ok
          ? `${v.merchantId}: ok, ${v.records} records\n`
          : `${v.merchantId}: BROKEN at record ${v.brokenAt.seq}${v.brokenAt.id ? ` (${v.brokenAt.id})` : ''}: ${v.reason}\n`,
      );
  const broken = verdicts.filter((v) => !v.ok).length;
  if (broken > 0) throw new CliError(`audit verify: ${broken} of ${verdicts.length} chains are broken`);
}

export async function listMerchants({ config, values, write }: CommandInput): Promise<void> {
  const merchants = await withDeps(config, (deps) => deps.services.merchants.listMerchants());
  write(values.json ? jsonLine(merchants) : merchantTable(merchants));
}

export async function rotateSecret({ config, values, args, write }: CommandInput): Promise<void> {
  const id = args[0] ?? '';
  await withDeps(config, async (deps) => {
    const rotated = await deps.services.merchants.rotateSecret(id);
    if (!rotated.ok) throw notFound(id);
    if (values.json) return write(credentialsJson(rotated.value));
    write(credentialsText(`New client secret for merchant ${id}; the old secret and its tokens no longer work.`, rotated.value));
  });
}

export function setStatus(status: MerchantProfile['status']) {
  return async ({ config, values, args, write }: CommandInput): Promise<void> => {
    const id = args[0] ?? '';
    const merchant = await withDeps(config, async (deps: Deps) => {
      const updated = await deps.services.merchants.setStatus(id, status);
      if (!updated.ok) throw notFound(id);
      return updated.value;
    });
    write(values.json ? jsonLine(merchant) : merchantLine(merchant));
  };
}

/** The merchant's default webhook signing secret (callback_url deliveries): show it, or rotate it. */
export function webhookSecret(rotate: boolean) {
  return async ({ config, values, args, write }: CommandInput): Promise<void> => {
    const id = args[0] ?? '';
    const secret = await withDeps(config, (deps) =>
      rotate
        ? withAudit(
            deps.db.db,
            deps.clock.now(),
            (trx) => rotateMerchantSigningSecret(trx, deps.encryptionKey, deps.clock, id),
            (rotated) => (rotated ? operatorEntry(id, 'webhook_secret.rotated') : null),
          )
        : revealMerchantSigningSecret(deps.db.db, deps.encryptionKey, deps.clock, id),
    );
    if (secret === null) throw notFound(id);
    if (values.json) return write(jsonLine({ merchant_id: id, webhook_secret: secret }));
    const note = rotate
      ? 'New webhook signing secret; the previous one keeps signing alongside it for 24 h.'
      : 'Webhook signing secret for callback_url deliveries:';
    write(`${note}\n  merchant_id:    ${id}\n  webhook_secret: ${secret}\n`);
  };
}

export async function migrate({ config, write }: CommandInput): Promise<void> {
  const applied = await migrateDatabase(config);
  const where = describeDatabase(config);
  write(applied.length === 0 ? `${where} is up to date.\n` : `Applied to ${where}: ${applied.join(', ')}\n`);
}

/** The secret kept in DATA_DIR: the same on every run, so the receiver's configuration stays put. */
function listenSecret(dataDir: string): { secret: string; secretNote: string } {
  const stored = storedListenSecret(dataDir);
  const note = `${stored.created ? 'new, ' : ''}kept in ${stored.file} and the same on every run; --secret overrides it`;
  return { secret: stored.secret, secretNote: note };
}

/** purse listen: a merchant command (client credentials, the HTTP API); it never opens the database. */
export async function listenCommand({ config, values, env, write }: CommandInput): Promise<void> {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const forwardTo = text('forward-to');
  if (!forwardTo || !/^https?:\/\//.test(forwardTo))
    throw new CliError('listen needs --forward-to URL, e.g. --forward-to http://localhost:3000/hooks');
  const clientId = text('client-id') ?? env.PURSE_CLIENT_ID;
  const clientSecret = text('client-secret') ?? env.PURSE_CLIENT_SECRET;
  if (!clientId || !clientSecret) {
    throw new CliError('listen signs in as a merchant: give --client-id and --client-secret (or PURSE_CLIENT_ID and PURSE_CLIENT_SECRET)');
  }
  const given = text('secret');
  if (given !== undefined && !WHSEC.test(given)) throw new CliError('--secret must be a whsec_… secret');
  const { secret, secretNote } = given === undefined ? listenSecret(config.dataDir) : { secret: given, secretNote: 'given with --secret' };
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await listen({
      baseUrl: text('base-url') ?? env.PURSE_BASE_URL ?? 'http://127.0.0.1:8080',
      clientId,
      clientSecret,
      forwardTo,
      secret,
      secretNote,
      intervalMs: 500,
      write,
      signal: controller.signal,
    });
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** Rewrites what the previous service key protects and can be recomputed (docs/operations.md, Rotating the key). */
export async function rekey({ config, write }: CommandInput): Promise<void> {
  await withDeps(config, async (deps) => {
    if (deps.previousHashKey === null) {
      write('PURSE_SECRET_KEY_PREVIOUS is not set: checking that every webhook secret opens with the current key.\n');
    }
    const rewritten = await rekeyWebhookSecrets(deps.db.db, deps.encryptionKey);
    write(`Webhook signing secrets re-encrypted with the current key: ${rewritten}.\n`);
    write(
      `Client-secret hashes are re-keyed at each merchant's next token exchange (or now with ${PURSE} merchant rotate-secret); ` +
        `access tokens issued under the old key expire within PURSE_TOKEN_TTL_S (${config.tokenTtlS} s).\n`,
    );
  });
}

/** Prints the key an older version generated into the settings table, to configure it as PURSE_SECRET_KEY(_FILE). */
export async function exportLegacyKey({ config, write }: CommandInput): Promise<void> {
  const key = await withDb(config, (db) => legacyStoredKey(db));
  if (key === null) throw new CliError('this database holds no generated service key (nothing to export)');
  write(`${key}\n`);
}

/** --since: an ISO 8601 time, or a duration back from now (90m, 24h, 7d). Default 7 days. */
function sinceOf(value: string | boolean | undefined, now: Date): Date {
  if (value === undefined) return new Date(now.getTime() - 7 * 86_400_000);
  if (typeof value !== 'string') throw new CliError('--since needs a value: an ISO time or a duration such as 24h or 7d');
  const duration = /^(\d{1,6})([mhd])$/.exec(value);
  if (duration) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[duration[2] as 'm' | 'h' | 'd'];
    return new Date(now.getTime() - Number(duration[1]) * unit);
  }
  const at = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(at))
    throw new CliError(`--since ${value}: give an ISO time (2026-11-01T00:00Z) or a duration (24h, 7d)`);
  return new Date(at);
}

/** Asks the provider about every object of the window, applies what is safe, prints every mismatch. */
export async function reconcile({ config, values, write }: CommandInput): Promise<void> {
  const provider = values.provider;
  if (typeof provider !== 'string' || provider === '') throw new CliError('reconcile needs --provider mtn|mpesa');
  await withDeps(config, async (deps) => {
    if (!deps.registry.get(provider) || provider === 'sandbox') {
      throw new CliError(`--provider ${provider}: not configured here (set its PURSE_${provider.toUpperCase()}_* variables)`);
    }
    const report = await deps.services.reconciliation.run(provider, sinceOf(values.since, deps.clock.now()));
    if (values.json) return write(jsonLine(report));
    write(`Reconciled ${report.checked} objects with ${provider} since ${report.since}.\n`);
    for (const a of report.applied) write(`  applied   ${a.object} ${a.id}: ${a.status} at the provider, was pending here\n`);
    for (const m of report.mismatches) {
      const at = [m.provider.status, m.provider.amount, m.provider.error].filter(Boolean).join(' ');
      write(`  MISMATCH  ${m.kind}: ${m.object} ${m.id} here ${m.here.status} ${m.here.amount} ${m.here.currency}; provider ${at}\n`);
    }
    for (const u of report.unverifiable) {
      write(`  UNVERIFIABLE ${u.object} ${u.id}: ${u.status} here; sent, but no reference the provider can be asked by\n`);
    }
    write(report.mismatches.length === 0 ? 'No mismatch.\n' : `${report.mismatches.length} mismatches.\n`);
  });
}

/** purse merchant update ID --raw-card-data | --no-raw-card-data: whether a live merchant may post card numbers. */
export async function updateMerchant({ config, values, args, write }: CommandInput): Promise<void> {
  const id = args[0] ?? '';
  if (values['raw-card-data'] === values['no-raw-card-data']) {
    throw new CliError('merchant update needs exactly one of --raw-card-data or --no-raw-card-data');
  }
  const allowed = values['raw-card-data'] === true;
  const merchant = await withDeps(config, async (deps: Deps) => {
    const updated = await deps.services.merchants.setRawCardData(id, allowed);
    if (!updated.ok) throw notFound(id);
    return updated.value;
  });
  if (values.json) return write(jsonLine({ ...merchant, raw_card_data: allowed }));
  write(`${merchantLine(merchant)}${allowed ? 'May' : 'May not'} post card numbers through the API (raw card data).\n`);
}

/** `purse user invite`: a merchant's user (the first owner, typically) and its one-time invitation link. */
export async function inviteUser({ config, values, write }: CommandInput): Promise<void> {
  const [merchant, email, role] = [values.merchant, values.email, values.role];
  const roles = USER_ROLES.join('|');
  if (typeof merchant !== 'string' || typeof email !== 'string' || typeof role !== 'string')
    throw new CliError(`user invite needs --merchant ID --email EMAIL --role ${roles}`);
  if (!isRole(role)) throw new CliError(`--role ${role}: one of ${roles}`);
  if (email.length > 254 || !/^[^@\s]+@[^@\s]+$/.test(email)) throw new CliError(`--email ${email}: not an email address`);
  const given = values['base-url'];
  const base = typeof given === 'string' ? given : (config.publicBaseUrl ?? `http://127.0.0.1:${config.port}`);
  const invited = await withDeps(config, async (deps) => {
    if (!(await deps.services.merchants.getMerchant(merchant))) throw notFound(merchant);
    try {
      return await deps.services.users.team.invite(merchant, { email, role }, base, { operator: true });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'user_exists')
        throw new CliError(`${email} is already a user (of this or another merchant)`);
      throw error;
    }
  });
  const { user, invitation_url, invitation_expires_at } = invited;
  if (values.json) return write(jsonLine({ user_id: user.id, email, role, merchant_id: merchant, invitation_url, invitation_expires_at }));
  write(`Invited ${email} as ${role} of merchant ${merchant}. One-time link, valid until ${invitation_expires_at}:\n  ${invitation_url}\n`);
}
