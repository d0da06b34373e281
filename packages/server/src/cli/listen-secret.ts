import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from './errors.ts';

/** Where `purse listen` keeps its signing secret: in DATA_DIR, beside the embedded database. */
export const LISTEN_SECRET_FILE = 'listen-secret.json';

/** A Standard Webhooks secret: whsec_ and at least 24 base64 characters. */
export const WHSEC = /^whsec_[A-Za-z0-9+/=]{24,}$/;

export function newListenSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function readSecret(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let secret: unknown;
  try {
    secret = (JSON.parse(text) as { secret?: unknown }).secret;
  } catch {
    secret = undefined;
  }
  if (typeof secret !== 'string' || !WHSEC.test(secret)) {
    throw new CliError(`${file} does not hold a whsec_… secret: delete it (a new one is made) or give --secret`);
  }
  return secret;
}

/**
 * The secret `purse listen` signs with, the same on every run so the receiver's configuration
 * stays put: read from DATA_DIR/listen-secret.json, or made and written there (mode 0600, created
 * exclusively, so two first runs at once agree on one).
 */
export function storedListenSecret(dataDir: string): { secret: string; file: string; created: boolean } {
  const file = join(dataDir, LISTEN_SECRET_FILE);
  const existing = readSecret(file);
  if (existing !== null) return { secret: existing, file, created: false };
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = newListenSecret();
  try {
    writeFileSync(file, `${JSON.stringify({ secret, created_at: new Date().toISOString() })}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const other = readSecret(file);
    if (other !== null) return { secret: other, file, created: false };
  }
  return { secret, file, created: true };
}
