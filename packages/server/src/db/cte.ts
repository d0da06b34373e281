import { type RawBuilder, sql } from 'kysely';

/**
 * The name of a CTE in a statement composed from several owners' fragments. The statement makes
 * each name once and hands it to every fragment that writes or reads that CTE, so no two
 * fragments agree on a name by spelling it alike, and renaming one is a type-checked change.
 */
export interface Cte {
  readonly name: string;
  /** The name as an identifier, for `FROM`, `JOIN` and `AS`. */
  readonly ref: RawBuilder<unknown>;
}

export function cte(name: string): Cte {
  if (!/^[a-z][a-z_]*$/.test(name)) throw new Error(`a CTE name is lower-case letters and underscores: ${name}`);
  // Checked above, so it is written as it is (no quotes): the rendered statement reads as hand-written SQL.
  return { name, ref: sql.raw(name) };
}

/**
 * `(SELECT count(*) FROM <earlier>) >= 0`, always true: in the WHERE of a locking CTE it makes
 * that CTE run after `earlier` (CTEs otherwise run when first read), so a statement takes its
 * row locks in the order every statement touching those rows takes them.
 */
export function after(earlier: Cte): RawBuilder<boolean> {
  return sql<boolean>`(SELECT count(*) FROM ${earlier.ref}) >= 0`;
}

/** Several CTE names at once, by name: `const c = ctes('input', 'ins')`, then `c.input`, `c.ins`. */
export function ctes<N extends string>(...names: N[]): Record<N, Cte> {
  return Object.fromEntries(names.map((name) => [name, cte(name)])) as Record<N, Cte>;
}

/** Column `name` of the FROM item `alias` (`o.failure_code`), for statements that name many of one row's columns. */
export function columnOf(alias: string): (name: string) => RawBuilder<string> {
  return (name) => {
    // Names written in the code, never input: checked, then written without quotes, as hand-written SQL would be.
    if (!/^[a-z][a-z_]*$/.test(alias) || !/^[a-z][a-z_]*$/.test(name)) throw new Error(`not a column: ${alias}.${name}`);
    return sql.raw<string>(`${alias}.${name}`);
  };
}
