import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { type Config, MAKE_KEY_HINT } from './config.ts';
import type { Db } from './db/db.ts';
import { ConfigError } from './shared/env.ts';

/** Where the embedded database's generated key lives: in DATA_DIR, beside (not inside) the database files. */
export const KEY_FILE_NAME = 'purse-secret.key';

/** The settings row older versions kept their generated key in; read only to move it out. */
export const LEGACY_SETTING = 'generated_secret_key';

export interface ServiceKeys {
  current: string;
  previous: string | null;
}

export function keyFilePath(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, KEY_FILE_NAME);
}

export async function legacyStoredKey(db: Db): Promise<string | null> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', LEGACY_SETTING).executeTakeFirst();
  return row?.value ?? null;
}

function readKeyFile(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Writes the key file once (mode 0600, never over an existing one); returns the key it holds. */
function writeKeyFile(path: string, key: string): string {
  try {
    writeFileSync(path, `${key}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readKeyFile(path) ?? key;
  }
}

/**
 * The service key of this process. The database never holds it: PURSE_SECRET_KEY(_FILE) when set
 * (required on PostgreSQL, checked by loadConfig); on the embedded database without it, a key file
 * in DATA_DIR, generated (0600) on the first start and reused by every later start and command.
 * A key an older version generated into the settings table is moved out once: on PGlite into the
 * key file, on PostgreSQL only when the operator configured it (as the key or the previous key);
 * otherwise the start is refused with how to export it. The row is deleted once it is safe.
 */
export async function resolveServiceKeys(db: Db, config: Config, log: Logger): Promise<ServiceKeys> {
  const legacy = await legacyStoredKey(db);
  let current = config.secretKey;
  if (current === null) {
    if (config.databaseUrl !== null) throw new ConfigError(`PostgreSQL needs PURSE_SECRET_KEY; ${MAKE_KEY_HINT}`);
    const path = keyFilePath(config);
    const existing = readKeyFile(path);
    if (legacy !== null && existing !== null && existing !== legacy) {
      throw new ConfigError(
        `${path} and the database's settings table hold different keys; the data was written with the one in the database: ` +
          `set PURSE_SECRET_KEY_PREVIOUS to it (npm run -s purse -- key export-legacy prints it) and run npm run purse -- rekey`,
      );
    }
    current = existing ?? writeKeyFile(path, legacy ?? randomBytes(32).toString('base64url'));
    if (existing === null) {
      log.warn(
        { keyFile: path },
        legacy === null
          ? 'no PURSE_SECRET_KEY: generated a service key file (mode 0600); back it up apart from the database, or set PURSE_SECRET_KEY'
          : 'moved the generated service key out of the database into the key file (mode 0600); back it up apart from the database',
      );
    }
  } else if (legacy !== null && legacy !== current && legacy !== config.previousSecretKey) {
    throw new ConfigError(
      'the settings table still holds the service key the data was written with, and it is not PURSE_SECRET_KEY: ' +
        'run `npm run -s purse -- key export-legacy > purse-secret.key`, set PURSE_SECRET_KEY_FILE=purse-secret.key (or, to move to a new key, ' +
        'PURSE_SECRET_KEY_PREVIOUS_FILE=purse-secret.key and then run npm run purse -- rekey), and start again; the row is then deleted',
    );
  }
  if (legacy !== null) {
    await db.deleteFrom('settings').where('key', '=', LEGACY_SETTING).execute();
    if (config.secretKey !== null)
      log.warn('deleted the generated service key from the settings table: PURSE_SECRET_KEY(_PREVIOUS) holds it now');
  }
  return { current, previous: config.previousSecretKey };
}
