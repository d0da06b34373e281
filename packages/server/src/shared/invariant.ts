/**
 * Returns a value the code's own invariants guarantee (a row just written, the first match of a
 * regular expression that matched). A missing value is a broken invariant: it throws loudly rather
 * than letting `undefined` travel on as the compiler's `!` would.
 */
export function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`invariant broken: ${what} is missing`);
  return value;
}
