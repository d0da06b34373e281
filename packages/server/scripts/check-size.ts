// The size limits of packages/server/src, checked by `npm run lint`: a source file over 400 lines
// or a function over 70 lines is an offender (*.test.ts files are not checked). The offenders of
// the day the limits came in are listed in size-burndown.txt with their line counts, and the list
// may only shrink: the check fails on an offender that is not listed, on a listed one that grew
// past its count, and on a listed one that is no longer an offender (its line must go).
// Biome 2.6 has both limits (noExcessiveLinesPerFile, noExcessiveLinesPerFunction), but it can
// exempt code only by a comment in the file or a whole file in biome.json, with no count to hold
// it to; a burn-down needs the measured size of each entry, so this script measures both.
//
// `node --import tsx packages/server/scripts/check-size.ts [packageDir]`: packageDir (default:
// packages/server) holds src/ and size-burndown.txt; the tests point it at a fixture.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 70;
export const BURNDOWN_FILE = 'size-burndown.txt';

/** A file or function and its line count. key: `src/a.ts` for a file, `src/a.ts name` for a function, as in the burn-down list. */
export interface Entry {
  key: string;
  lines: number;
}

export interface Measured extends Entry {
  limit: number;
}

type FunctionLike =
  | ts.FunctionDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.AccessorDeclaration;

function isFunctionLike(node: ts.Node): node is FunctionLike {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** Lines as an editor numbers them: a final newline does not start another line. */
export function countLines(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

const propertyName = (name: ts.PropertyName, file: ts.SourceFile): string =>
  ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)
    ? name.text
    : name.getText(file);

/** The parent that says what a function is, past parentheses and type assertions around it. */
function meaningfulParent(node: ts.Node): ts.Node {
  let parent = node.parent;
  while (ts.isParenthesizedExpression(parent) || ts.isAsExpression(parent) || ts.isSatisfiesExpression(parent)) parent = parent.parent;
  return parent;
}

/** A callback is named by the call it is passed to: `post('/v1/charges') callback`, `map() callback`. */
function callbackName(call: ts.CallExpression | ts.NewExpression, file: ts.SourceFile): string {
  const callee = call.expression;
  const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : callee.getText(file);
  const first = call.arguments?.[0];
  const label = first && ts.isStringLiteralLike(first) ? `'${first.text}'` : '';
  return `${ts.isNewExpression(call) ? 'new ' : ''}${name}(${label}) callback`;
}

/** The name a reader would look for: the declared one, else the variable, property or call holding it. */
function ownName(node: FunctionLike, file: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return propertyName(node.name, file);
  const parent = meaningfulParent(node);
  if (ts.isVariableDeclaration(parent)) return parent.name.getText(file);
  if (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return propertyName(parent.name, file);
  if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) return parent.left.getText(file);
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) return callbackName(parent, file);
  if (ts.isExportAssignment(parent)) return 'default';
  return '<anonymous>';
}

/**
 * Every function in a file with its line count (from its first line to its closing line, a leading
 * doc comment not counted). Names are qualified by what encloses them, `Class.method` and
 * `outer > inner`, so that one name stays put while lines move; a name taken twice gets ` #2`.
 */
export function measureFunctions(path: string, text: string): { name: string; lines: number }[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: { name: string; lines: number }[] = [];
  const taken = new Map<string, number>();
  const visit = (node: ts.Node, prefix: string): void => {
    let inner = prefix;
    if (ts.isClassLike(node)) inner = `${prefix}${node.name?.text ?? '<class>'}.`;
    if (isFunctionLike(node) && node.body) {
      const base = `${prefix}${ownName(node, file)}`.replace(/\s+/g, ' ');
      const seen = (taken.get(base) ?? 0) + 1;
      taken.set(base, seen);
      const name = seen === 1 ? base : `${base} #${seen}`;
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ name, lines: last - first + 1 });
      inner = `${name} > `;
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(file, '');
  return found;
}

/** The source files checked: src/**\/*.ts but the tests, as paths relative to the package. */
function sourceFiles(packageDir: string): string[] {
  const src = join(packageDir, 'src');
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((path) => /\.[cm]?tsx?$/.test(path) && !/\.test\.[cm]?tsx?$/.test(path))
    .map((path) => relative(packageDir, join(src, path)).split('\\').join('/'))
    .sort();
}

/** Every file and function of the package's src/ with its line count and limit, in path order. */
export function measure(packageDir: string): Measured[] {
  const measured: Measured[] = [];
  for (const path of sourceFiles(packageDir)) {
    const text = readFileSync(join(packageDir, path), 'utf8');
    measured.push({ key: path, lines: countLines(text), limit: MAX_FILE_LINES });
    for (const fn of measureFunctions(path, text)) measured.push({ key: `${path} ${fn.name}`, lines: fn.lines, limit: MAX_FUNCTION_LINES });
  }
  return measured;
}

/** The burn-down file's entries by key. A line is `<lines> <file> [<function>]`; `#` starts a comment line. */
export function parseBurndown(text: string): { entries: Map<string, number>; errors: string[] } {
  const entries = new Map<string, number>();
  const errors: string[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^(\d+)\s+(\S+)(?:\s+(.+))?$/.exec(line);
    if (!match?.[1] || !match[2]) {
      errors.push(`${BURNDOWN_FILE}:${index + 1}: expected "<lines> <file> [<function>]", got: ${line}`);
      return;
    }
    const key = match[3] ? `${match[2]} ${match[3].replace(/\s+/g, ' ')}` : match[2];
    if (entries.has(key)) errors.push(`${BURNDOWN_FILE}:${index + 1}: ${key} is listed twice; keep one line`);
    entries.set(key, Number(match[1]));
  });
  return { entries, errors };
}

/** How the offenders stand against the burn-down list. Each entry is printed as a line of that list. */
export interface Comparison {
  /** Over a limit and not listed: fails. */
  unlisted: Entry[];
  /** Listed and longer than recorded: fails. */
  grown: (Entry & { listed: number })[];
  /** Listed but no longer over its limit (now: its size), or gone (now undefined): fails until its line is deleted. */
  stale: (Entry & { now: number | undefined })[];
  /** Listed and shorter than recorded: passes, with a note to lower the count. */
  shrunk: (Entry & { listed: number })[];
}

export function compareWithBurndown(measured: Measured[], entries: Map<string, number>): Comparison {
  const result: Comparison = { unlisted: [], grown: [], stale: [], shrunk: [] };
  const offenders = measured.filter((m) => m.lines > m.limit);
  const over = new Set(offenders.map((o) => o.key));
  const size = new Map(measured.map((m) => [m.key, m.lines]));
  for (const { key, lines } of offenders) {
    const listed = entries.get(key);
    if (listed === undefined) result.unlisted.push({ key, lines });
    else if (lines > listed) result.grown.push({ key, lines, listed });
    else if (lines < listed) result.shrunk.push({ key, lines, listed });
  }
  for (const [key, lines] of entries) {
    if (!over.has(key)) result.stale.push({ key, lines, now: size.get(key) });
  }
  return result;
}

const LIMITS = `${MAX_FILE_LINES} lines per file, ${MAX_FUNCTION_LINES} per function`;

/** The report: per kind of problem, what to do once, then the entries as burn-down lines. */
export function describe(comparison: Comparison, errors: string[]): { failed: boolean; lines: string[] } {
  const { unlisted, grown, stale, shrunk } = comparison;
  const lines: string[] = [...errors];
  const section = (count: number, text: string, entries: string[]) => {
    if (count > 0) lines.push(`${count} ${text}`, ...entries.map((e) => `  ${e}`));
  };
  section(
    unlisted.length,
    `over the limits (${LIMITS}) and not in ${BURNDOWN_FILE}. Make them shorter: split the file or function. ` +
      `The list holds only what was over when the limits came in; if one of these is such code moved or renamed, ` +
      `replace its old entry with the line shown:`,
    unlisted.map((o) => `${o.lines} ${o.key}`),
  );
  section(
    grown.length,
    `listed in ${BURNDOWN_FILE} but grew past the recorded count. A listed entry may only shrink: take the new lines back out.`,
    grown.map((o) => `${o.key}: ${o.lines} lines, recorded ${o.listed}`),
  );
  section(
    stale.length,
    `listed in ${BURNDOWN_FILE} but no longer over the limits (or gone). Delete these lines from ${BURNDOWN_FILE}:`,
    stale.map((o) => `${o.lines} ${o.key}   (${o.now === undefined ? 'not found' : `now ${o.now} lines`})`),
  );
  section(
    shrunk.length,
    `listed in ${BURNDOWN_FILE} got shorter (not a failure). Lower their counts so they cannot grow back:`,
    shrunk.map((o) => `${o.lines} ${o.key}   (was ${o.listed})`),
  );
  return { failed: errors.length + unlisted.length + grown.length + stale.length > 0, lines };
}

/** Runs the check on one package folder; returns the exit code. */
export function checkSize(packageDir: string, out: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): number {
  const burndownPath = join(packageDir, BURNDOWN_FILE);
  const { entries, errors } = parseBurndown(existsSync(burndownPath) ? readFileSync(burndownPath, 'utf8') : '');
  const { failed, lines } = describe(compareWithBurndown(measure(packageDir), entries), errors);
  for (const line of lines) out(`check-size: ${line}`);
  if (failed) {
    out(`check-size: failed. Limits: ${LIMITS} in src/ (tests excepted); burn-down list: ${burndownPath}`);
    return 1;
  }
  out(`check-size: ok (${LIMITS}); ${entries.size} entries left in ${burndownPath}`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = checkSize(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
}
