import { sql } from 'kysely';

/** A column of a merged statement's input: its name, its SQL type, its value for an item. */
export type MergedColumn<Item> = readonly [name: string, type: string, value: (item: Item) => unknown];

/**
 * The input of a merged statement: `SELECT * FROM unnest($1::type[], …) AS i(name, …)`, one row
 * per item, and the parameters for a list of items (one array per column, in order). With
 * `ordinality`, a last column of that name numbers the items in their order.
 */
export function mergedInput<Item>(columns: readonly MergedColumn<Item>[], options: { ordinality?: string } = {}) {
  const arrays = columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
  const names = [...columns.map(([name]) => name), ...(options.ordinality ? [options.ordinality] : [])].join(', ');
  // WITH ORDINALITY numbers the items 1…n in the order they were given (their arrival order).
  return {
    select: sql.raw(`SELECT * FROM unnest(${arrays})${options.ordinality ? ' WITH ORDINALITY' : ''} AS i(${names})`),
    parameters: (items: readonly Item[]): unknown[][] => columns.map(([, , value]) => items.map(value)),
  };
}

/** A jsonb column's parameter: the value as JSON text, NULL as NULL. */
export const jsonParameter = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));
