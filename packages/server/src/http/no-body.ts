import { ApiError } from '../shared/errors.ts';

/** Actions that take no body (freeze, expire): none, or an empty object; any field is unknown. */
export function refuseBody(body: unknown): void {
  if (body === undefined || body === null) return;
  if (typeof body !== 'object' || Array.isArray(body)) throw new ApiError('invalid_json', 'The request body must be a JSON object.');
  const key = Object.keys(body)[0];
  if (key !== undefined)
    throw new ApiError('parameter_unknown', `${key} is not a known parameter. This route takes no body parameters.`, { param: key });
}
