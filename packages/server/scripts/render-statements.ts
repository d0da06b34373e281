// Writes src/db/statements/*.sql: each merged money write's statement as the code renders it
// (src/money-writes.ts). Run after changing a statement; test/db/statements.test.ts checks them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RENDERED_STATEMENTS, renderedStatement } from '../src/money-writes.ts';

const dir = fileURLToPath(new URL('../src/db/statements/', import.meta.url));
mkdirSync(dir, { recursive: true });
for (const [file, source, write] of RENDERED_STATEMENTS) {
  writeFileSync(`${dir}${file}`, renderedStatement(source, write));
  process.stdout.write(`wrote src/db/statements/${file}\n`);
}
