// Lints the OpenAPI document the app generates (GET /openapi.json) with Redocly's recommended
// rules (redocly.yaml, exceptions in .redocly.lint-ignore.yaml). The app is built on an
// in-memory database, as the tests build it. Warnings fail too: the document stays lint clean.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateDocument } from './openapi-document.ts';

const SERVER_DIR = new URL('..', import.meta.url).pathname;
// Under the config's folder, at the path .redocly.lint-ignore.yaml names (.tmp is git-ignored).
const DOCUMENT = join(SERVER_DIR, '.tmp/openapi.json');
const REDOCLY = join(SERVER_DIR, '../../node_modules/.bin/redocly');

function redocly(format: 'json' | 'stylish') {
  const result = spawnSync(REDOCLY, ['lint', DOCUMENT, '--config', join(SERVER_DIR, 'redocly.yaml'), '--format', format], {
    cwd: SERVER_DIR,
    encoding: 'utf8',
    stdio: format === 'json' ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    // No telemetry or update check: the lint runs offline in CI.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  if (result.error) throw result.error;
  return result;
}

mkdirSync(join(SERVER_DIR, '.tmp'), { recursive: true });
writeFileSync(DOCUMENT, `${JSON.stringify(await generateDocument(), null, 2)}\n`);
const quiet = redocly('json');
let totals: { errors: number; warnings: number; ignored: number } | undefined;
try {
  totals = JSON.parse(quiet.stdout).totals;
} catch {
  totals = undefined;
}
if (quiet.status === 0 && totals && totals.errors + totals.warnings === 0) {
  process.stdout.write(`lint-openapi: ${DOCUMENT} is lint clean (${totals.ignored} ignored, see .redocly.lint-ignore.yaml)\n`);
} else {
  // Something to report: run again with the human format so the problems are readable.
  if (!totals) process.stderr.write(quiet.stderr);
  const loud = redocly('stylish');
  process.stderr.write(`lint-openapi: ${totals ? `${totals.errors} errors, ${totals.warnings} warnings` : 'redocly failed'}\n`);
  process.exitCode = loud.status || 1;
}
