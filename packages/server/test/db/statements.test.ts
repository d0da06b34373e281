// The committed statements (src/db/statements/*.sql) are what the code renders: a change to a
// money write's SQL shows in its .sql file in the same diff, or this test fails.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compileStatement } from '../../src/db/statement-text.ts';
import { RENDERED_STATEMENTS, renderedStatement } from '../../src/money-writes.ts';

const dir = fileURLToPath(new URL('../../src/db/statements/', import.meta.url));

for (const [file, source, write] of RENDERED_STATEMENTS) {
  test(`src/db/statements/${file} is the "${write.name}" statement the code renders`, () => {
    const committed = readFileSync(`${dir}${file}`, 'utf8');
    assert.equal(
      committed,
      renderedStatement(source, write),
      `src/db/statements/${file} differs from what ${source} renders: run npm run sql:render -w @purse/server and review the diff`,
    );
  });
}

test('every committed statement file belongs to a money write, and none carries a value of its own', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.sql'));
  assert.deepEqual(files.sort(), RENDERED_STATEMENTS.map(([file]) => file).sort());
  for (const [file, , write] of RENDERED_STATEMENTS) {
    // Compiled once and prepared once per connection: the items' values come only as arrays.
    assert.equal(compileStatement(write.statement).parameters.length, 0, `${file}: a value of its own`);
    assert.doesNotMatch(
      readFileSync(`${dir}${file}`, 'utf8'),
      /\$[0-9]+(?![0-9]*::[a-z]+\[\])/,
      `${file}: a parameter that is not an array`,
    );
  }
});
