import { keyedHash } from './secrets.ts';

/**
 * Duplicate-request comparison (docs/api.md §7): each field's canonical JSON is hashed with the
 * service key, so the stored fingerprint says which fields differ without keeping their values
 * (a card number only ever enters as its own keyed hash).
 */
export type Fingerprint = Record<string, string>;

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function fingerprint(key: Buffer, fields: Record<string, unknown>): Fingerprint {
  const out: Fingerprint = {};
  for (const [name, value] of Object.entries(fields)) out[name] = keyedHash(key, `fp:${name}:${canonicalJson(value)}`);
  return out;
}

/** Names of the fields whose hashes differ (or exist on one side only), sorted. */
export function differingFields(stored: Fingerprint, incoming: Fingerprint): string[] {
  const names = new Set([...Object.keys(stored), ...Object.keys(incoming)]);
  return [...names].filter((n) => stored[n] !== incoming[n]).sort();
}
