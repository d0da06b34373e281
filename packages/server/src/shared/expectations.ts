/**
 * What a request field expects, in plain words, for the 400 that refuses it. It is kept on the
 * field's schema under a symbol: one schema still gives validation, the type and the OpenAPI
 * document (symbols are not serialised, so the document does not change), and the message is
 * written once, beside the field, for every route that uses it. http/validation-errors.ts reads it.
 */

const EXPECTED = Symbol('purse.expected');

/** The words after "<param> must be": a fixed phrase, or one built from the value that was sent. */
export type Expectation = string | ((sent: unknown) => string);

/** Marks `schema` (and every copy TypeBox makes of it: Optional, unions) with what it expects. */
export function withExpectation<T extends object>(schema: T, expectation: Expectation): T {
  (schema as Record<symbol, unknown>)[EXPECTED] = expectation;
  return schema;
}

/** The phrase for a schema marked by withExpectation, given what was sent; null when unmarked. */
export function expectationOf(schema: unknown, sent: unknown): string | null {
  if (schema === null || typeof schema !== 'object') return null;
  const expectation = (schema as Record<symbol, unknown>)[EXPECTED] as Expectation | undefined;
  if (expectation === undefined) return null;
  return typeof expectation === 'string' ? expectation : expectation(sent);
}
