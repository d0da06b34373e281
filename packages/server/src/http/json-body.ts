import type { FastifyInstance } from 'fastify';
import { ApiError } from '../shared/errors.ts';

const MAX_DEPTH = 16;
// C0 controls, DEL and C1 controls. JSON escapes (\u0000) decode into these, and PostgreSQL
// refuses NUL in text, so they are refused at the door with a clear 400 instead.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Walks a parsed body once: refuses control characters in keys and values, and nesting deeper
 * than MAX_DEPTH. Returns the dotted path of the first offence, or null.
 */
function findOffence(value: unknown, path: string[], depth: number): { param: string; message: string } | null {
  if (typeof value === 'string') {
    if (CONTROL.test(value)) return { param: path.join('.'), message: 'must not contain control characters' };
    // A lone UTF-16 surrogate ("\ud800" in JSON) is no Unicode text: PostgreSQL refuses it in
    // JSON and stores U+FFFD in text, so it is refused here, for every field, before any work.
    return !LONE_SURROGATE.test(value) ? null : { param: path.join('.'), message: 'must be valid Unicode text (it has a lone surrogate)' };
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth > MAX_DEPTH) return { param: path.join('.'), message: `is nested deeper than ${MAX_DEPTH} levels` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findOffence(value[i], [...path, String(i)], depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    if (CONTROL.test(key)) return { param: [...path, key.replace(CONTROL, '?')].join('.'), message: 'has a control character in its name' };
    if (LONE_SURROGATE.test(key))
      return { param: [...path, key.replace(LONE_SURROGATE, '?')].join('.'), message: 'has a lone surrogate in its name' };
    // An own "__proto__" property turns into a prototype change as soon as code copies the
    // object with assignment; no field of this API has that name, so it is refused anywhere.
    if (key === '__proto__') return { param: [...path, key].join('.'), message: 'is not an allowed name' };
    const found = findOffence((value as Record<string, unknown>)[key], [...path, key], depth + 1);
    if (found) return found;
  }
  return null;
}

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw new ApiError('invalid_json', 'The request body is empty; send a JSON object.');
  let value: unknown;
  try {
    // __proto__ keys become plain own properties with JSON.parse; findOffence refuses them.
    value = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
  const offence = findOffence(value, [], 0);
  if (offence) {
    throw new ApiError(
      'parameter_invalid',
      `${offence.param || 'The body'} ${offence.message}.`,
      offence.param ? { param: offence.param } : {},
    );
  }
  return value;
}

export function registerJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // Many HTTP clients send Content-Type: application/json on every request: a route that takes
    // no body (DELETE, rotate_secret, redeliver) accepts an empty one whatever the header says.
    if ((body as string) === '' && request.routeOptions.schema?.body === undefined) return done(null, undefined);
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
