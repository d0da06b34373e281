// Stripe's v1 API takes application/x-www-form-urlencoded bodies (and query strings) whose keys
// name a path with brackets: `metadata[purse_payment_id]=pay_1`, `payment_method_data[card][number]=…`,
// `expand[]=latest_charge`. This turns such a body into nested objects and arrays, and gives the
// canonical form of a parsed body that the idempotency layer compares.

export type FormValue = string | FormValue[] | FormObject;
export interface FormObject {
  [key: string]: FormValue;
}

export class FormError extends Error {}

/** `a[b][]` → ['a', 'b', '']; a key without brackets is one segment. */
function segmentsOf(key: string): string[] {
  const open = key.indexOf('[');
  if (open === -1) return [key];
  const segments = [key.slice(0, open)];
  const rest = key.slice(open);
  const pattern = /\[([^[\]]*)\]/g;
  let consumed = 0;
  for (let match = pattern.exec(rest); match; match = pattern.exec(rest)) {
    if (match.index !== consumed) throw new FormError(`Invalid parameter name: ${key}`);
    segments.push(match[1] as string);
    consumed = match.index + match[0].length;
  }
  if (consumed !== rest.length || segments[0] === '') throw new FormError(`Invalid parameter name: ${key}`);
  return segments;
}

const decode = (text: string) => {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new FormError('Invalid URL encoding in the request body');
  }
};

/** The container a segment needs: '' and digits make an array, any other name an object. */
const containerFor = (segment: string): FormValue => (segment === '' || /^\d+$/.test(segment) ? [] : {});

function place(root: FormObject, key: string, value: string): void {
  const segments = segmentsOf(key);
  let node: FormValue = root;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    const last = i === segments.length - 1;
    if (typeof node === 'string') throw new FormError(`Invalid parameter: ${key} mixes a value and a hash`);
    if (Array.isArray(node)) {
      if (!(segment === '' || /^\d+$/.test(segment))) throw new FormError(`Invalid array index in ${key}`);
      const index: number = segment === '' ? node.length : Number(segment);
      if (last) node[index] = value;
      else node = node[index] ??= containerFor(segments[i + 1] as string);
      continue;
    }
    if (last) {
      if (typeof node[segment] === 'object') throw new FormError(`Invalid parameter: ${key} mixes a value and a hash`);
      node[segment] = value;
    } else {
      node = node[segment] ??= containerFor(segments[i + 1] as string);
    }
  }
}

/** Parses a form body (or a query string without its `?`). A repeated plain key keeps its last value. */
export function parseForm(raw: string): FormObject {
  const root: FormObject = {};
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode(eq === -1 ? pair : pair.slice(0, eq));
    const value = decode(eq === -1 ? '' : pair.slice(eq + 1));
    place(root, key, value);
  }
  return root;
}

/** JSON with object keys sorted: two bodies with the same parameters in another order compare equal. */
export function canonicalForm(value: FormValue): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalForm(v ?? '')).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalForm(value[k] as FormValue)}`).join(',')}}`;
}

/** Encodes nested parameters the way Stripe's clients do (for tests and for the challenge page). */
export function encodeForm(params: Record<string, unknown>, prefix = ''): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    const name = prefix === '' ? key : `${prefix}[${key}]`;
    if (Array.isArray(value)) {
      for (const item of value) parts.push(`${encodeURIComponent(`${name}[]`)}=${encodeURIComponent(String(item))}`);
    } else if (value !== null && typeof value === 'object') {
      const nested = encodeForm(value as Record<string, unknown>, name);
      if (nested !== '') parts.push(nested);
    } else {
      parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
    }
  }
  return parts.join('&');
}
