/**
 * The card acquirer's configuration (PURSE_CARD_ACQUIRER_*), read by config.ts into
 * Config.cardAcquirer. It may import only shared/ (.dependency-cruiser.cjs).
 */
import { allOrNone, ConfigError, type Env, requireHttpUrl } from '../../shared/env.ts';

export interface AcquirerConfig {
  /** The acquirer's API root, e.g. https://api.stripe.com (no trailing slash). */
  readonly baseUrl: string;
  /** The Bearer secret key: never logged, never echoed in an error. */
  readonly secretKey: string;
  /** Signing secrets of its webhooks: several, comma-separated, while one is being rolled. */
  readonly webhookSecrets: readonly string[];
}

const VARIABLES = ['PURSE_CARD_ACQUIRER_BASE_URL', 'PURSE_CARD_ACQUIRER_SECRET_KEY', 'PURSE_CARD_ACQUIRER_WEBHOOK_SECRET'] as const;

/** All three or none: a partial set refuses to start, naming what is missing (never printing a value). */
export function readAcquirerConfig(env: Env): AcquirerConfig | null {
  const value = allOrNone(env, 'the card acquirer', VARIABLES);
  if (value === null) return null;
  requireHttpUrl('PURSE_CARD_ACQUIRER_BASE_URL', value('PURSE_CARD_ACQUIRER_BASE_URL'));
  const secretKey = value('PURSE_CARD_ACQUIRER_SECRET_KEY');
  if (/\s/.test(secretKey)) throw new ConfigError('PURSE_CARD_ACQUIRER_SECRET_KEY must not contain spaces');
  const webhookSecrets = value('PURSE_CARD_ACQUIRER_WEBHOOK_SECRET')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (webhookSecrets.length === 0) throw new ConfigError('PURSE_CARD_ACQUIRER_WEBHOOK_SECRET must name at least one secret');
  return Object.freeze({
    baseUrl: value('PURSE_CARD_ACQUIRER_BASE_URL').replace(/\/+$/, ''),
    secretKey,
    webhookSecrets: Object.freeze(webhookSecrets),
  });
}
