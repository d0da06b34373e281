import type { FastifyRequest } from 'fastify';
import { ApiError } from '../shared/errors.ts';

// The same rule as JSON bodies (json-body.ts): C0 controls, DEL and C1 controls are refused.
// A NUL in a filter such as ?reference=%00 would otherwise reach PostgreSQL, which rejects it (a 500).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** preValidation hook for /v1: refuses control characters in query-string names and values. */
export async function refuseControlCharactersInQuery(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown> | null | undefined;
  if (!query || typeof query !== 'object') return;
  for (const [key, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? value : [value];
    if (CONTROL.test(key) || values.some((v) => typeof v === 'string' && CONTROL.test(v))) {
      const param = key.replace(new RegExp(CONTROL.source, 'g'), '?');
      throw new ApiError('parameter_invalid', `${param} must not contain control characters.`, { param });
    }
  }
}
