import { dayBoundary } from './time.ts';

export type Filters = Record<string, string>;

/** A list's search form as the API's filters: empty fields left out, "from" and "to" days as instants. */
export function readFilters(form: HTMLFormElement): Filters {
  const filters: Filters = {};
  for (const [key, raw] of new FormData(form)) {
    const value = String(raw).trim();
    if (value === '') continue;
    if (key === 'from') filters.created_gte = dayBoundary(value, false);
    else if (key === 'to') filters.created_lte = dayBoundary(value, true);
    else filters[key] = value;
  }
  return filters;
}
