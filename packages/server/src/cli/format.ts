import type { MerchantCredentials, MerchantProfile } from '../merchants/service.ts';
import { PURSE } from './usage.ts';

export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** Exactly the three credential fields, in a fixed order (scripts parse this). */
export function credentialsJson(credentials: MerchantCredentials): string {
  const { merchant_id, client_id, client_secret } = credentials;
  return jsonLine({ merchant_id, client_id, client_secret });
}

export function credentialsText(heading: string, credentials: MerchantCredentials): string {
  return [
    heading,
    `  merchant_id:   ${credentials.merchant_id}`,
    `  client_id:     ${credentials.client_id}`,
    `  client_secret: ${credentials.client_secret}`,
    'The client secret is shown only now: store it safely.',
    '',
  ].join('\n');
}

const mode = (merchant: MerchantProfile) => (merchant.livemode ? 'live' : 'sandbox');

export function merchantTable(merchants: readonly MerchantProfile[]): string {
  if (merchants.length === 0) return `No merchants yet. Create one with: ${PURSE} merchant create --name NAME\n`;
  const rows = [
    ['ID', 'STATUS', 'MODE', 'CLIENT_ID', 'CREATED_AT', 'NAME'],
    ...merchants.map((m) => [m.id, m.status, mode(m), m.client_id, m.created_at, m.name]),
  ];
  const widths = (rows[0] ?? []).map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ');
  return `${rows.map(line).join('\n')}\n`;
}

export function merchantLine(merchant: MerchantProfile): string {
  return `Merchant ${merchant.id} (${mode(merchant)}, "${merchant.name}") is now ${merchant.status}.\n`;
}
