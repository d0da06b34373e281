// The size check (scripts/check-size.ts) can fail: on fixture packages written to a temporary
// folder, a file or function one line over its limit is flagged when it is not in the burn-down
// list, a listed entry that grew is flagged, and a listed entry that shrank within its limit is
// flagged as stale until its line is deleted. The real tree passes against the real list.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { BURNDOWN_FILE, checkSize, countLines, MAX_FILE_LINES, MAX_FUNCTION_LINES, measureFunctions } from '../../scripts/check-size.ts';

const SERVER = new URL('../../', import.meta.url).pathname;
const SCRIPT = join(SERVER, 'scripts/check-size.ts');

const scratch = mkdtempSync(join(tmpdir(), 'purse-size-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A module of exactly `count` lines, no function in it. */
const fileOf = (count: number) => Array.from({ length: count }, (_, i) => `export const v${i} = ${i};\n`).join('');

/** A function of exactly `count` lines, its signature and closing brace included. */
const functionOf = (name: string, count: number) =>
  `export function ${name}(): number {\n${'  void 0;\n'.repeat(count - 3)}  return 1;\n}\n`;

/** A fixture package: its src/ files and, when given, its burn-down list. */
function fixture(name: string, files: Record<string, string>, burndown?: string): string {
  const root = join(scratch, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  if (burndown !== undefined) writeFileSync(join(root, BURNDOWN_FILE), burndown);
  return root;
}

function check(root: string): { code: number; output: string } {
  const lines: string[] = [];
  const code = checkSize(root, (line) => lines.push(line));
  return { code, output: lines.join('\n') };
}

test('lines are counted as an editor numbers them, functions from signature to closing brace', () => {
  assert.equal(countLines(fileOf(3)), 3);
  assert.equal(countLines('a\nb'), 2);
  assert.equal(countLines(''), 0);
  const measured = measureFunctions('src/a.ts', `/** doc */\n${functionOf('f', 5)}`);
  assert.deepEqual(measured, [{ name: 'f', lines: 5 }]);
});

test('functions are named by what holds them, callbacks by the call they are passed to', () => {
  const source = [
    'export class Store {',
    '  save() { return [1].map((n) => n); }',
    '}',
    'export const make = () => ({ run: function () { return 1; } });',
    "app.post('/v1/charges', async () => 1);",
  ].join('\n');
  assert.deepEqual(
    measureFunctions('src/a.ts', source).map((f) => f.name),
    ['Store.save', 'Store.save > map() callback', 'make', 'make > run', "post('/v1/charges') callback"],
  );
});

test('a file or function at its limit passes; one line over, unlisted, fails and is named', async () => {
  const atLimit = fixture('at-limit', { 'src/file.ts': fileOf(MAX_FILE_LINES), 'src/fn.ts': functionOf('fits', MAX_FUNCTION_LINES) });
  assert.equal(check(atLimit).code, 0, check(atLimit).output);

  const over = fixture('over', {
    'src/file.ts': fileOf(MAX_FILE_LINES + 1),
    'src/fn.ts': functionOf('tooLong', MAX_FUNCTION_LINES + 1),
    'src/file.test.ts': fileOf(MAX_FILE_LINES + 50),
  });
  // Through the command `npm run lint` runs: the exit code is what fails the lint.
  const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', SCRIPT, over], { cwd: SERVER }).then(
    () => ({ code: 0, output: '' }),
    (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
  );
  assert.equal(run.code, 1, run.output);
  assert.match(run.output, /2 over the limits .* not in size-burndown\.txt/);
  assert.match(run.output, new RegExp(`^check-size: {3}${MAX_FILE_LINES + 1} src/file\\.ts$`, 'm'));
  assert.match(run.output, new RegExp(`^check-size: {3}${MAX_FUNCTION_LINES + 1} src/fn\\.ts tooLong$`, 'm'));
  assert.doesNotMatch(run.output, /file\.test\.ts/, 'test files are not checked');
});

test('a listed offender passes while it stays within its recorded count', () => {
  const files = { 'src/big.ts': fileOf(450), 'src/fn.ts': functionOf('long', 90) };
  const same = check(fixture('listed', files, '# header\n450 src/big.ts\n90 src/fn.ts long\n'));
  assert.equal(same.code, 0, same.output);

  const shrunk = check(fixture('listed-shrunk', files, '460 src/big.ts\n90 src/fn.ts long\n'));
  assert.equal(shrunk.code, 0, shrunk.output);
  assert.match(shrunk.output, /Lower their counts/);
  assert.match(shrunk.output, /450 src\/big\.ts {3}\(was 460\)/);
});

test('a listed offender that grew fails', () => {
  const grown = check(fixture('grown', { 'src/fn.ts': functionOf('long', 91) }, '90 src/fn.ts long\n'));
  assert.equal(grown.code, 1, grown.output);
  assert.match(grown.output, /grew past the recorded count/);
  assert.match(grown.output, /src\/fn\.ts long: 91 lines, recorded 90/);
});

test('a listed entry now within its limit, or gone, is stale and fails until its line is deleted', () => {
  const stale = check(
    fixture(
      'stale',
      { 'src/big.ts': fileOf(300), 'src/fn.ts': functionOf('long', 40) },
      '450 src/big.ts\n90 src/fn.ts long\n95 src/gone.ts f\n',
    ),
  );
  assert.equal(stale.code, 1, stale.output);
  assert.match(stale.output, /3 listed in size-burndown\.txt but no longer over the limits \(or gone\)\. Delete these lines/);
  assert.match(stale.output, /450 src\/big\.ts {3}\(now 300 lines\)/);
  assert.match(stale.output, /90 src\/fn\.ts long {3}\(now 40 lines\)/);
  assert.match(stale.output, /95 src\/gone\.ts f {3}\(not found\)/);
});

test('a malformed or repeated burn-down line fails', () => {
  const bad = check(fixture('malformed', { 'src/big.ts': fileOf(450) }, 'src/big.ts 450\n450 src/big.ts\n450 src/big.ts\n'));
  assert.equal(bad.code, 1, bad.output);
  assert.match(bad.output, /size-burndown\.txt:1: expected "<lines> <file> \[<function>\]"/);
  assert.match(bad.output, /size-burndown\.txt:3: src\/big\.ts is listed twice/);
});

test('the real source tree passes against the real burn-down list', () => {
  const real = check(SERVER);
  assert.equal(real.code, 0, real.output);
});
