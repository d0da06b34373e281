import { type Static, Type } from 'typebox';
import { METHOD_TYPES } from '../db/schema.ts';
import { ApiError } from '../shared/errors.ts';
import { ListQuery } from '../shared/pagination.ts';
import { ChargeStatus } from './schemas.ts';
import type { ChargeFilters } from './store/read.ts';

export const ChargeListQuery = Type.Object(
  {
    ...ListQuery,
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    status: Type.Optional(ChargeStatus),
    payment_method_type: Type.Optional(Type.Union(METHOD_TYPES.map((t) => Type.Literal(t)))),
    created_gte: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339 time: created at or after.' })),
    created_lte: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339 time: created at or before.' })),
  },
  { additionalProperties: false },
);

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/i;

/** Every field in range: Date would roll 2026-02-30 over into March instead of refusing it. */
function fieldsInRange(m: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const offsetOk = m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59 && offsetOk;
}

/** An RFC 3339 query time (created_gte, created_lte), or the 400 naming `param`. */
export function readTime(value: string | undefined, param: string): Date | undefined {
  if (value === undefined) return undefined;
  const match = RFC3339.exec(value);
  const date = new Date(value);
  if (!match || !fieldsInRange(match) || Number.isNaN(date.getTime())) {
    throw new ApiError('parameter_invalid', `${param} must be an RFC 3339 time such as 2026-01-31T12:00:00Z.`, { param });
  }
  return date;
}

export function readChargeFilters(query: Static<typeof ChargeListQuery>): ChargeFilters {
  const filters: ChargeFilters = {};
  if (query.reference !== undefined) filters.reference = query.reference;
  if (query.status !== undefined) filters.status = query.status;
  if (query.payment_method_type !== undefined) filters.methodType = query.payment_method_type;
  const gte = readTime(query.created_gte, 'created_gte');
  const lte = readTime(query.created_lte, 'created_lte');
  if (gte) filters.createdGte = gte;
  if (lte) filters.createdLte = lte;
  return filters;
}
