// The SDK's types refuse wrong shapes: test/types/cases.ts is compiled with tsc twice. As written,
// it must compile (each `@ts-expect-error` is used, so every wrong shape is refused). With the
// directives taken out, each statement that had one must fail with the error code its directive
// names (so it is refused for the stated reason, not for a typo elsewhere in the line).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const CASES = fileURLToPath(new URL('./types/cases.ts', import.meta.url));
const text = readFileSync(CASES, 'utf8');
const DIRECTIVE = /@ts-expect-error (TS\d+)/;

function compile(source: string): readonly ts.Diagnostic[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => (name === CASES ? source : readFile(name));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError) =>
    name === CASES ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, onError);
  return ts.getPreEmitDiagnostics(ts.createProgram([CASES], options, host));
}

const describe = (d: ts.Diagnostic) =>
  `${d.file ? `line ${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ` : ''}TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;

/** The statements under a directive, with the code it expects. */
function cases(): { code: string; start: number; end: number; line: number; reason: string }[] {
  const file = ts.createSourceFile(CASES, text, ts.ScriptTarget.ES2022, true);
  const found = [];
  for (const statement of file.statements) {
    for (const range of ts.getLeadingCommentRanges(text, statement.pos) ?? []) {
      const comment = text.slice(range.pos, range.end);
      const match = DIRECTIVE.exec(comment);
      if (!match) continue;
      const line = file.getLineAndCharacterOfPosition(statement.getStart()).line + 1;
      found.push({ code: match[1]!, start: statement.getStart(), end: statement.end, line, reason: comment.replace(DIRECTIVE, '').trim() });
    }
  }
  return found;
}

test('test/types/cases.ts compiles: every wrong shape under @ts-expect-error is refused, every right one accepted', () => {
  const diagnostics = compile(text);
  assert.deepEqual(diagnostics.map(describe), []);
});

test('without the directives, each wrong shape fails with the error its directive names', () => {
  const all = cases();
  assert.ok(all.length >= 16, `expected at least 16 cases, found ${all.length}`);
  // Same length, so the positions of cases() still hold.
  const diagnostics = compile(text.replaceAll('@ts-expect-error', '#ts-expect-error')).filter((d) => d.file?.fileName === CASES);
  for (const c of all) {
    const here = diagnostics.filter((d) => (d.start ?? -1) >= c.start && (d.start ?? -1) < c.end);
    assert.ok(
      here.some((d) => `TS${d.code}` === c.code),
      `line ${c.line} (${c.reason}): expected ${c.code}, got ${here.map(describe).join('; ') || 'no error'}`,
    );
  }
  const outside = diagnostics.filter((d) => !all.some((c) => (d.start ?? -1) >= c.start && (d.start ?? -1) < c.end));
  assert.deepEqual(outside.map(describe), [], 'no error outside the cases');
});
