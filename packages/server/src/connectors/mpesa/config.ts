/**
 * M-Pesa Daraja's configuration (PURSE_MPESA_*), read by config.ts into Config.mpesa. It may
 * import only shared/ (.dependency-cruiser.cjs): config.ts is below everything else of the service.
 */
import { allOrNone, ConfigError, type Env, requireHttpUrl } from '../../shared/env.ts';

export interface MpesaConfig {
  readonly baseUrl: string;
  readonly consumerKey: string;
  readonly consumerSecret: string;
  /** The paybill or till of STK Push (BusinessShortCode, PartyB). */
  readonly shortcode: string;
  readonly passkey: string;
  /** The B2C shortcode that pays out (PartyA of B2C). */
  readonly b2cShortcode: string;
  readonly initiatorName: string;
  readonly securityCredential: string;
  /** Where Daraja calls back: {publicUrl}/provider-callbacks/mpesa. */
  readonly publicUrl: string;
}

const MPESA_VARIABLES = [
  'PURSE_MPESA_BASE_URL',
  'PURSE_MPESA_CONSUMER_KEY',
  'PURSE_MPESA_CONSUMER_SECRET',
  'PURSE_MPESA_SHORTCODE',
  'PURSE_MPESA_PASSKEY',
  'PURSE_MPESA_B2C_SHORTCODE',
  'PURSE_MPESA_INITIATOR_NAME',
  'PURSE_MPESA_SECURITY_CREDENTIAL',
  'PURSE_PUBLIC_URL',
] as const;

/** All M-Pesa variables or none, as for MTN; never printing a value. */
export function readMpesaConfig(env: Env): MpesaConfig | null {
  const value = allOrNone(env, 'M-Pesa Daraja', MPESA_VARIABLES, ['PURSE_PUBLIC_URL']);
  if (value === null) return null;
  for (const name of ['PURSE_MPESA_BASE_URL', 'PURSE_PUBLIC_URL'] as const) requireHttpUrl(name, value(name));
  for (const name of ['PURSE_MPESA_SHORTCODE', 'PURSE_MPESA_B2C_SHORTCODE'] as const) {
    if (!/^\d{5,7}$/.test(value(name))) throw new ConfigError(`${name} must be a shortcode of 5 to 7 digits`);
  }
  return Object.freeze({
    baseUrl: value('PURSE_MPESA_BASE_URL').replace(/\/+$/, ''),
    consumerKey: value('PURSE_MPESA_CONSUMER_KEY'),
    consumerSecret: value('PURSE_MPESA_CONSUMER_SECRET'),
    shortcode: value('PURSE_MPESA_SHORTCODE'),
    passkey: value('PURSE_MPESA_PASSKEY'),
    b2cShortcode: value('PURSE_MPESA_B2C_SHORTCODE'),
    initiatorName: value('PURSE_MPESA_INITIATOR_NAME'),
    securityCredential: value('PURSE_MPESA_SECURITY_CREDENTIAL'),
    publicUrl: value('PURSE_PUBLIC_URL').replace(/\/+$/, ''),
  });
}
