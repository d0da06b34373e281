// Each endpoint declares the parameters it takes; anything else is `parameter_unknown`, as Stripe
// answers. A parameter Stripe has but this fake does not model is refused the same way, so the
// fake says out loud what it does not do instead of ignoring it.
import { invalidRequest, missingParam, unknownParam } from './errors.ts';
import type { FormObject, FormValue } from './form.ts';

/** 'string' a value, 'strings' a list (`expand[]`), 'map' string keys to strings (`metadata`), or nested. */
export type Spec = 'string' | 'strings' | 'map' | { [key: string]: Spec };

const name = (prefix: string, key: string) => (prefix === '' ? key : `${prefix}[${key}]`);
const isObject = (v: FormValue | undefined): v is FormObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Stripe's metadata limits: 50 keys, keys up to 40 characters, values up to 500. */
function checkMetadata(value: FormValue, param: string): void {
  if (!isObject(value)) throw invalidRequest(`Invalid object: ${param} must be a hash`, { param });
  const entries = Object.entries(value);
  if (entries.length > 50) throw invalidRequest('Metadata can have up to 50 keys.', { param });
  for (const [key, v] of entries) {
    if (typeof v !== 'string') throw invalidRequest(`Invalid string: ${name(param, key)}`, { param: name(param, key) });
    if (key.length > 40) throw invalidRequest(`Metadata keys can have up to 40 characters (${key}).`, { param: name(param, key) });
    if (v.length > 500) throw invalidRequest('Metadata values can have up to 500 characters.', { param: name(param, key) });
  }
}

export function checkShape(params: FormObject, spec: { [key: string]: Spec }, prefix = ''): void {
  for (const [key, value] of Object.entries(params)) {
    const param = name(prefix, key);
    const expected = spec[key];
    if (expected === undefined) throw unknownParam(param);
    if (expected === 'string') {
      if (typeof value !== 'string') throw invalidRequest(`Invalid string: ${param} must be a value, not a hash or list`, { param });
    } else if (expected === 'strings') {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw invalidRequest(`Invalid array: ${param}`, { param });
    } else if (expected === 'map') {
      checkMetadata(value, param);
    } else {
      if (!isObject(value)) throw invalidRequest(`Invalid object: ${param} must be a hash`, { param });
      checkShape(value, expected, param);
    }
  }
}

/** The value at a path of string segments; undefined when absent. */
export function at(params: FormObject, ...path: string[]): FormValue | undefined {
  let node: FormValue | undefined = params;
  for (const segment of path) node = isObject(node) ? node[segment] : undefined;
  return node;
}

const label = (path: string[]) => path.reduce((acc, s) => (acc === '' ? s : `${acc}[${s}]`), '');

export function stringAt(params: FormObject, path: string[], required: boolean): string | undefined {
  const value = at(params, ...path);
  if (value === undefined || value === '') {
    if (required) throw missingParam(label(path));
    return undefined;
  }
  return value as string;
}

/** A non-negative integer written in decimal digits, as Stripe's form parameters carry integers. */
export function integerAt(params: FormObject, path: string[], required: boolean): number | undefined {
  const value = stringAt(params, path, required);
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value))
    throw invalidRequest(`Invalid integer: ${value}`, { code: 'parameter_invalid_integer', param: label(path) });
  return Number(value);
}

export function booleanAt(params: FormObject, path: string[]): boolean | undefined {
  const value = stringAt(params, path, false);
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw invalidRequest(`Invalid boolean: ${value}`, { param: label(path) });
  return value === 'true';
}

export function enumAt<T extends string>(params: FormObject, path: string[], allowed: readonly T[]): T | undefined {
  const value = stringAt(params, path, false);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw invalidRequest(`Invalid ${label(path)}: must be one of ${allowed.join(', ')}`, { param: label(path) });
  }
  return value as T;
}

/** The metadata hash without the keys posted empty (an empty value unsets a key on Stripe). */
export function metadataAt(params: FormObject): Record<string, string> {
  const value = at(params, 'metadata');
  if (!isObject(value)) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== '')) as Record<string, string>;
}

/** `expand[]`: only the listed properties can be expanded. */
export function expandAt(params: FormObject, expandable: readonly string[]): Set<string> {
  const value = at(params, 'expand');
  const list = Array.isArray(value) ? (value as string[]) : [];
  for (const item of list) {
    if (!expandable.includes(item)) throw invalidRequest(`This property cannot be expanded (${item}).`, { param: 'expand' });
  }
  return new Set(list);
}
