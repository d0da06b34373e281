import type { Expression, SelectQueryBuilder } from 'kysely';
import { Type } from 'typebox';
import { ApiError } from './errors.ts';
import { withExpectation } from './expectations.ts';
import { type IdKind, isIdOf } from './ids.ts';

/** Cursor lists (docs/api.md §9): newest first, keyed on the time-sortable id (or a PageOrder). */

/** One message for every bad limit, whether the schema's pattern or readPageRequest refuses it. */
const LIMIT_RULE = 'a whole number from 1 to 100 (the default is 10)';

export const ListQuery = {
  limit: Type.Optional(withExpectation(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 100; default 10.' }), LIMIT_RULE)),
  starting_after: Type.Optional(Type.String({ maxLength: 64, description: 'An id: the page after it (older objects).' })),
  ending_before: Type.Optional(Type.String({ maxLength: 64, description: 'An id: the page before it (newer objects).' })),
};

/** The query string of a route that takes none (retrieve, balance, freeze): any name is unknown (400 parameter_unknown). */
export const NoQuery = Type.Object({}, { additionalProperties: false });

export interface PageRequest {
  limit: number;
  startingAfter: string | null;
  endingBefore: string | null;
}

export function readPageRequest(query: { limit?: string; starting_after?: string; ending_before?: string }, kind: IdKind): PageRequest {
  const limit = query.limit === undefined ? 10 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new ApiError('parameter_invalid', `limit must be ${LIMIT_RULE}.`, { param: 'limit' });
  }
  if (query.starting_after !== undefined && query.ending_before !== undefined) {
    throw new ApiError('parameter_invalid', 'Send starting_after or ending_before, not both.', { param: 'ending_before' });
  }
  for (const name of ['starting_after', 'ending_before'] as const) {
    const value = query[name];
    if (value !== undefined && !isIdOf(kind, value))
      throw new ApiError('parameter_invalid', `${name} must be an id of this list.`, { param: name });
  }
  return { limit, startingAfter: query.starting_after ?? null, endingBefore: query.ending_before ?? null };
}

export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

/**
 * A list ordered by another column than the id: the cursor stays an id of the list, and
 * `keyOf` is the SQL giving that cursor's value of `column` (`side`: which cursor it is).
 */
export interface PageOrder {
  column: string;
  keyOf: (cursor: string, side: 'starting_after' | 'ending_before') => Expression<unknown>;
}

/**
 * Runs a keyset page over `order` (the id column's name, or a PageOrder). The query must
 * already be scoped to the merchant, so a cursor from another merchant only positions the
 * page; it can never select foreign rows.
 */
export async function fetchPage<DB, TB extends keyof DB, O extends { id: string }>(
  query: SelectQueryBuilder<DB, TB, O>,
  order: string | PageOrder,
  page: PageRequest,
): Promise<{ rows: O[]; hasMore: boolean }> {
  // Kysely cannot type a column name chosen at run time; the callers pass a literal.
  const col = (typeof order === 'string' ? order : order.column) as never;
  const key = (cursor: string, side: 'starting_after' | 'ending_before') =>
    (typeof order === 'string' ? cursor : order.keyOf(cursor, side)) as never;
  let q = query;
  if (page.endingBefore) q = q.where(col, '>', key(page.endingBefore, 'ending_before')).orderBy(col, 'asc');
  else {
    if (page.startingAfter) q = q.where(col, '<', key(page.startingAfter, 'starting_after'));
    q = q.orderBy(col, 'desc');
  }
  const rows = await q.limit(page.limit + 1).execute();
  const hasMore = rows.length > page.limit;
  const pageRows = rows.slice(0, page.limit);
  if (page.endingBefore) pageRows.reverse();
  return { rows: pageRows, hasMore };
}

export function listResponseSchema(ref: string) {
  return Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(Type.Unsafe<unknown>({ $ref: `${ref}#` })),
    has_more: Type.Boolean(),
  });
}
