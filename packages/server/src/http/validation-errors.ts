import type { FastifyRequest } from 'fastify';
import { ApiError } from '../shared/errors.ts';
import { expectationOf } from '../shared/expectations.ts';
import { present } from '../shared/invariant.ts';

/**
 * The route schema's refusals (Ajv errors) → the contract's codes, with the dotted `param` and a
 * message in plain words: what the field must be, and what was sent instead (its JSON type, never
 * its value, which may be a card number). A field whose schema carries an expectation
 * (shared/expectations.ts: amount, currency, limit) is described by it.
 */

export interface AjvError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
  /** Set when a key (not a value) broke the rule: `propertyNames`, e.g. a metadata key too long. */
  propertyName?: string;
}

type Schema = Record<string, unknown>;

/** The objects that name a means of payment beside its `type`. */
const MEANS_OBJECTS = new Set(['wallet', 'card', 'mobile_money']);

/** Ajv keywords whose failure means "not the expected form", which an expectation describes. */
const FORM_KEYWORDS = new Set(['type', 'pattern', 'format']);

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list (a JSON array)',
  null: 'null',
};

const decode = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');
const segments = (pointer: string) => pointer.split('/').filter((p) => p !== '' && p !== '#');

/** JSON pointer from Ajv (`/payment_method/card/number`) → the contract's dotted path. */
function pointerToParam(pointer: string, child?: string): string {
  const parts = segments(pointer).map(decode);
  if (child !== undefined) parts.push(child);
  return parts.join('.');
}

/** What was sent at a JSON pointer of the body or query; undefined when absent. */
function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const part of segments(pointer).map(decode)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** Where an Ajv schemaPath starts: the route's schema (`#/…`), or a shared schema a `$ref` named (`CardMethod#/…`). */
interface SchemaRoots {
  route: unknown;
  shared(id: string): unknown;
}

/** The schema holding the failed keyword (an Ajv schemaPath, `#/properties/amount/type`), or null. */
function ownerOf(roots: SchemaRoots, schemaPath: string): Schema | null {
  const hash = schemaPath.indexOf('#/');
  if (hash < 0) return null;
  let node = hash === 0 ? roots.route : roots.shared(schemaPath.slice(0, hash));
  for (const part of segments(schemaPath.slice(hash)).slice(0, -1).map(decode)) {
    if (node === null || typeof node !== 'object') return null;
    node = (node as Record<string, unknown>)[part];
  }
  return node !== null && typeof node === 'object' ? (node as Schema) : null;
}

function sentOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a number' : 'a number with a fraction';
  if (typeof value === 'boolean') return `${value}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const typeWords = (type: unknown) =>
  String(type)
    .split(',')
    .map((t) => TYPE_WORDS[t] ?? t)
    .join(' or ');

const propertyNames = (schema: Schema | null) =>
  schema?.properties && typeof schema.properties === 'object' ? Object.keys(schema.properties) : [];

/** The words after `<param>` for a keyword with no expectation. */
function describe(error: AjvError, owner: Schema | null): string {
  const n = Number(error.params.limit);
  switch (error.keyword) {
    case 'maxLength':
      return `must be at most ${n} characters long`;
    case 'minLength':
      return n === 1 ? 'must not be empty' : `must be at least ${n} characters long`;
    case 'minimum':
    case 'maximum':
      if (typeof owner?.minimum === 'number' && typeof owner.maximum === 'number')
        return `must be from ${owner.minimum} to ${owner.maximum}`;
      return `must be ${error.keyword === 'minimum' ? 'at least' : 'at most'} ${n}`;
    case 'maxProperties':
      return `must have at most ${n} keys`;
    case 'minProperties': {
      const fields = propertyNames(owner);
      return `must have at least ${n} field${n === 1 ? '' : 's'}${fields.length > 0 ? ` (of: ${fields.join(', ')})` : ''}`;
    }
    case 'minItems':
      return `must list at least ${n} item${n === 1 ? '' : 's'}`;
    case 'maxItems':
      return `must list at most ${n} items`;
    case 'uniqueItems':
      return 'must not list the same item twice';
    case 'pattern':
      return 'has an invalid format';
    case 'enum':
      return `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/**
 * A wrong type or value, with every alternative Ajv tried at the same place (a union reports one
 * error per branch): "must be one of: a, b (or null)", "must be a string or null, not a number".
 */
function wrongKind(errors: AjvError[], first: AjvError, roots: SchemaRoots, sent: unknown): string {
  const values: string[] = [];
  const types: string[] = [];
  for (const error of errors) {
    if (error.instancePath !== first.instancePath || (error.keyword !== 'const' && error.keyword !== 'type')) continue;
    const branch = ownerOf(roots, error.schemaPath);
    // A literal's branch fails on its type before its value: either way the literal is the alternative.
    const alternative =
      branch && 'const' in branch ? String(branch.const) : error.keyword === 'const' ? String(error.params.allowedValue) : null;
    if (alternative !== null) values.push(alternative);
    else types.push(typeWords(error.params.type));
  }
  const unique = (list: string[]) => [...new Set(list)];
  if (values.length > 0)
    return `must be one of: ${unique(values).join(', ')}${types.length > 0 ? ` (or ${unique(types).join(' or ')})` : ''}`;
  const wanted = unique(types).join(' or ');
  const got = sentOf(sent);
  return got === wanted ? `must be ${wanted}` : `must be ${wanted}, not ${got}`;
}

/** A near miss among the names a schema takes: `amout` → amount, `phoneNumber` → phone_number. */
export function nearest(name: string, known: string[]): string | null {
  const squash = (s: string) => s.toLowerCase().replace(/[_-]/g, '');
  const exact = known.find((k) => squash(k) === squash(name));
  if (exact) return exact;
  const close = known.filter((k) => Math.abs(k.length - name.length) <= 2 && editDistance(k, name) <= 2);
  return close.length === 1 ? (close[0] ?? null) : null;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      next.push(Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + cost));
    }
    row = next;
  }
  return row[b.length] ?? 0;
}

function unknownParameter(first: AjvError, owner: Schema | null, context: string, where: string): ApiError {
  const extra = String(first.params.additionalProperty);
  // A means object this operation does not take (a wallet as a top-up's source): the type is
  // what is wrong, not an unknown field (the contract's parameter_invalid on `<means>.type`).
  if (/^\/(source|payment_method)$/.test(first.instancePath) && MEANS_OBJECTS.has(extra)) {
    const param = pointerToParam(first.instancePath, 'type');
    return new ApiError('parameter_invalid', `${where}${param} ${extra} is not accepted here.`, { param });
  }
  const param = pointerToParam(first.instancePath, extra);
  const known = propertyNames(owner);
  const parent = pointerToParam(first.instancePath);
  const kind = context === 'querystring' ? 'query parameters' : `${context} parameters`;
  const guess = nearest(extra, known);
  const hint =
    guess !== null
      ? ` Did you mean ${parent === '' ? guess : `${parent}.${guess}`}?`
      : known.length === 0
        ? ` This ${parent === '' ? 'route' : 'object'} takes no ${parent === '' ? kind : 'parameters'}.`
        : ` Known ${parent === '' ? kind : `in ${parent}`}: ${known.join(', ')}.`;
  return new ApiError('parameter_unknown', `${where}${param} is not a known parameter.${hint}`, { param });
}

/**
 * A required field that is absent, with what was sent instead: a near miss (`phoneNumber`), another
 * field (`phone`, with the fields the object takes), or another means' object (`{type: 'card',
 * mobile_money}`, with the two ways out).
 */
function missingParameter(first: AjvError, owner: Schema | null, sent: unknown, where: string): ApiError {
  const name = String(first.params.missingProperty);
  const param = pointerToParam(first.instancePath, name);
  const known = propertyNames(owner);
  const properties = (owner?.properties ?? {}) as Record<string, unknown>;
  const keys = sent !== null && typeof sent === 'object' ? Object.keys(sent) : [];
  const others = keys.filter((key) => !known.includes(key));
  const nearMiss = others.find((key) => nearest(key, [name]) !== null);
  const otherMeans = keys.find((key) => properties[key] === false && MEANS_OBJECTS.has(key));
  const expected = expectationOf(properties[name], undefined);
  const parent = pointerToParam(first.instancePath);
  const taken = known.filter((key) => properties[key] !== false);
  let detail = expected ? `: ${expected}` : '';
  if (nearMiss !== undefined) detail = ` (was it sent as ${nearMiss}? Names are spelt exactly as documented, in snake_case)`;
  else if (otherMeans !== undefined)
    detail = ` when ${parent}.type is ${name}; ${otherMeans} was sent instead: send ${name}, or set type to ${otherMeans}`;
  else if (others.length > 0 && parent !== '')
    detail = ` (${others.join(', ')} ${others.length === 1 ? 'is' : 'are'} not known in ${parent || 'the request'}, which takes: ${taken.join(', ')})`;
  return new ApiError('parameter_missing', `${where}${param} is required${detail}.`, { param });
}

export function fromValidation(errors: AjvError[], context: string, request: FastifyRequest): ApiError {
  const first = present(errors[0], 'first validation error');
  const where = context === 'body' || context === 'querystring' ? '' : `${context} `;
  const schemas = (request.routeOptions.schema ?? {}) as Record<string, unknown>;
  const roots: SchemaRoots = { route: schemas[context], shared: (id) => request.server.getSchema(id) };
  const owner = ownerOf(roots, first.schemaPath);
  const sent = valueAt((request as unknown as Record<string, unknown>)[context === 'querystring' ? 'query' : context], first.instancePath);
  if (
    first.keyword === 'required' &&
    first.instancePath === '' &&
    first.params.missingProperty === 'reference' &&
    request.headers['idempotency-key']
  )
    // A habit from other payment APIs: here the reference is the idempotency key.
    return new ApiError(
      'parameter_missing',
      'reference is required: Purse reads no Idempotency-Key header; the reference, unique in your account, is what makes a retry safe (send your key as reference).',
      { param: 'reference' },
    );
  if (first.keyword === 'required') return missingParameter(first, owner, sent, where);
  if (first.keyword === 'additionalProperties') return unknownParameter(first, owner, context, where);
  if (first.propertyName !== undefined) {
    const param = pointerToParam(first.instancePath, first.propertyName);
    return new ApiError('parameter_invalid', `${where}${param}: the key ${describe(first, owner)}.`, { param });
  }
  const param = pointerToParam(first.instancePath);
  if (param === '') {
    const message = first.keyword === 'type' ? 'must be a JSON object' : describe(first, owner);
    return new ApiError('invalid_json', `The request ${context} ${message}.`);
  }
  if (first.keyword === 'false schema') {
    // Another means' object in the variant `type` chose (charges/schemas.ts meansInput): { type: 'card', card, mobile_money }.
    const parent = first.instancePath.replace(/\/[^/]*$/, '');
    const type = (valueAt(request.body, parent) as { type?: unknown } | undefined)?.type;
    return new ApiError('parameter_invalid', `${where}${param} is not allowed when ${pointerToParam(parent, 'type')} is ${String(type)}.`, {
      param,
    });
  }
  if (context === 'querystring' && Array.isArray(sent)) {
    return new ApiError('parameter_invalid', `${param} is given more than once; send it once.`, { param });
  }
  const expected = FORM_KEYWORDS.has(first.keyword) ? expectationOf(owner, sent) : null;
  if (expected !== null) return new ApiError('parameter_invalid', `${where}${param} must be ${expected}.`, { param });
  const message = first.keyword === 'const' || first.keyword === 'type' ? wrongKind(errors, first, roots, sent) : describe(first, owner);
  return new ApiError('parameter_invalid', `${where}${param} ${message}.`, { param });
}
