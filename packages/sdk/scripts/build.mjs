// npm run build: dist/ from src/, ESM and .d.ts, with the repository's TypeScript. dist/ is emptied
// first so no file of a removed source is packed; the generated openapi.d.ts (types only, which tsc
// does not copy) is copied beside the declarations that import it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(`${root}dist`, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', `${root}tsconfig.json`], { stdio: 'inherit' });
copyFileSync(`${root}src/openapi.d.ts`, `${root}dist/openapi.d.ts`);
