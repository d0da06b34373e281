/**
 * MTN MoMo's configuration (PURSE_MTN_*), read by config.ts into Config.mtn. It may import only
 * shared/ (.dependency-cruiser.cjs): config.ts is below everything else of the service.
 */
import { allOrNone, type Env, requireHttpUrl } from '../../shared/env.ts';

export interface MtnProductCredentials {
  readonly subscriptionKey: string;
  readonly apiUser: string;
  readonly apiKey: string;
}

export interface MtnConfig {
  readonly baseUrl: string;
  readonly targetEnvironment: string;
  /** Where MTN calls back: {publicUrl}/provider-callbacks/mtn. */
  readonly publicUrl: string;
  readonly collection: MtnProductCredentials;
  readonly disbursement: MtnProductCredentials;
}

const MTN_VARIABLES = [
  'PURSE_MTN_BASE_URL',
  'PURSE_MTN_TARGET_ENVIRONMENT',
  'PURSE_MTN_COLLECTION_SUBSCRIPTION_KEY',
  'PURSE_MTN_COLLECTION_API_USER',
  'PURSE_MTN_COLLECTION_API_KEY',
  'PURSE_MTN_DISBURSEMENT_SUBSCRIPTION_KEY',
  'PURSE_MTN_DISBURSEMENT_API_USER',
  'PURSE_MTN_DISBURSEMENT_API_KEY',
  'PURSE_PUBLIC_URL',
] as const;

/** All MTN variables or none: a partial set refuses to start, naming what is missing (never printing a value). */
export function readMtnConfig(env: Env): MtnConfig | null {
  const value = allOrNone(env, 'MTN MoMo', MTN_VARIABLES, ['PURSE_PUBLIC_URL']);
  if (value === null) return null;
  for (const name of ['PURSE_MTN_BASE_URL', 'PURSE_PUBLIC_URL'] as const) requireHttpUrl(name, value(name));
  return Object.freeze({
    baseUrl: value('PURSE_MTN_BASE_URL').replace(/\/+$/, ''),
    targetEnvironment: value('PURSE_MTN_TARGET_ENVIRONMENT'),
    publicUrl: value('PURSE_PUBLIC_URL').replace(/\/+$/, ''),
    collection: Object.freeze({
      subscriptionKey: value('PURSE_MTN_COLLECTION_SUBSCRIPTION_KEY'),
      apiUser: value('PURSE_MTN_COLLECTION_API_USER'),
      apiKey: value('PURSE_MTN_COLLECTION_API_KEY'),
    }),
    disbursement: Object.freeze({
      subscriptionKey: value('PURSE_MTN_DISBURSEMENT_SUBSCRIPTION_KEY'),
      apiUser: value('PURSE_MTN_DISBURSEMENT_API_USER'),
      apiKey: value('PURSE_MTN_DISBURSEMENT_API_KEY'),
    }),
  });
}
