import { createHash } from 'node:crypto';
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Fastify's own validator (Ajv) and serializer (fast-json-stringify) compilers, with what they
 * compile kept for the process: a route's schema compiled once serves every app the process
 * builds. Compiling every route's schemas costs about 2 s of CPU per app; a server builds one
 * app, but the test suite builds hundreds in a few processes, and the CLI and benchmarks several.
 *
 * A compiled function depends only on the schema, the shared schemas it may reference
 * (app.addSchema) and the compiler's options, so the key is the JSON of all three. Schemas are
 * plain JSON (TypeBox); the cache holds one entry per distinct schema of the code base.
 */
type Compilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
/** A route as both compilers see it: its schema, and the part (validator) or status and type (serializer). */
interface RouteSchema {
  schema: unknown;
  httpPart?: string;
  httpStatus?: string;
  contentType?: string;
}
/** Both factories' shape: from the shared schemas and the options, a compiler of one route's schema. */
type Factory = (externalSchemas: unknown, options?: { customOptions?: unknown }) => (route: RouteSchema) => unknown;

const validators = new Map<string, unknown>();
const serializers = new Map<string, unknown>();

const digest = (value: unknown) =>
  createHash('sha256')
    .update(JSON.stringify(value) ?? '')
    .digest('base64url');

/** What `build` returns for a route, made once per (shared schemas and options, route part, schema). */
function memoised(
  cache: Map<string, unknown>,
  context: string,
  part: (route: RouteSchema) => string,
  build: (route: RouteSchema) => unknown,
): (route: RouteSchema) => unknown {
  return (route) => {
    const key = `${context}|${part(route)}|${digest(route.schema)}`;
    const known = cache.get(key);
    if (known !== undefined) return known;
    const made = build(route);
    cache.set(key, made);
    return made;
  };
}

export function cachedCompilers(): Compilers {
  const ajv = AjvCompiler() as unknown as Factory;
  const json = SerializerSelector() as unknown as Factory;
  const buildValidator: Factory = (externalSchemas, options) =>
    memoised(validators, digest([externalSchemas, options?.customOptions]), (r) => r.httpPart ?? '', ajv(externalSchemas, options));
  const buildSerializer: Factory = (externalSchemas, options) =>
    memoised(
      serializers,
      digest([externalSchemas, options]),
      (r) => `${r.httpStatus ?? ''} ${r.contentType ?? ''}`,
      json(externalSchemas, options),
    );
  return { buildValidator, buildSerializer } as unknown as Compilers;
}
