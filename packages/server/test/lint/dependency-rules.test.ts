// The rules of .dependency-cruiser.cjs can fail: each one is shown to catch a violation planted in
// a small copy of the source layout (written to a temporary folder, so neither the type check nor
// Biome nor the real cruise ever sees it), and the real tree breaks none of them. The rules on
// bench/ and the SDK are planted in a copy laid out as the repository is, the server's miniature
// under packages/server/. Biome is shown
// to refuse a planted formatting and lint problem the same way.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { cruise, type ICruiseOptions, type IViolation } from 'dependency-cruiser';

const REPO = new URL('../../../../', import.meta.url).pathname;
const config = createRequire(import.meta.url)(join(REPO, '.dependency-cruiser.cjs'));

const scratch = mkdtempSync(join(tmpdir(), 'purse-lint-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A miniature of packages/server/src that keeps every rule: each layer imports only what it may. */
const CLEAN: Record<string, string> = {
  'src/shared/a.ts': 'export const a = 1;\n',
  'src/shared/b.ts': "import { a } from './a.ts';\nexport const b = a;\n",
  'src/connectors/mtn/config.ts': "import { a } from '../../shared/a.ts';\nexport const mtnConfig = a;\n",
  'src/connectors/mtn/connector.ts': "import { mtnConfig } from './config.ts';\nexport const mtn = mtnConfig;\n",
  'src/config.ts':
    "import { mtnConfig } from './connectors/mtn/config.ts';\nimport { a } from './shared/a.ts';\nexport const config = a + mtnConfig;\n",
  'src/db/db.ts': "import { config } from '../config.ts';\nimport { b } from '../shared/b.ts';\nexport const db = config + b;\n",
  'src/ledger/post.ts': "import { db } from '../db/db.ts';\nexport const post = db;\n",
  'src/merchants/service.ts': "import { a } from '../shared/a.ts';\nexport const merchants = a;\n",
  'src/wallets/service.ts': "import { post } from '../ledger/post.ts';\nexport const wallets = post;\n",
  'src/http/hooks.ts': "import { a } from '../shared/a.ts';\nexport type Hook = () => void;\nexport const hook = a;\n",
  'src/wallets/routes.ts':
    "import { hook } from '../http/hooks.ts';\nimport { wallets } from './service.ts';\nexport const walletRoutes = hook + wallets;\n",
  'src/payments/routes.ts': "import { hook } from '../http/hooks.ts';\nexport const paymentRoutes = hook;\n",
  'src/deps.ts':
    "import { merchants } from './merchants/service.ts';\nimport { wallets } from './wallets/service.ts';\nexport type Deps = { n: number };\nexport const deps = merchants + wallets;\n",
  'src/app.ts':
    "import type { Deps } from './deps.ts';\nimport { hook } from './http/hooks.ts';\nimport { paymentRoutes } from './payments/routes.ts';\nimport { walletRoutes } from './wallets/routes.ts';\nexport const app = (d: Deps) => d.n + hook + paymentRoutes + walletRoutes;\n",
  'src/main.ts': "import { app } from './app.ts';\nimport { deps } from './deps.ts';\nexport const main = app({ n: deps });\n",
  'src/cli/run.ts': "import { deps } from '../deps.ts';\nexport const run = deps;\n",
};

/** The miniature where it sits in the repository, with bench/ (using the server's source) and the SDK beside it. */
const REPO_CLEAN: Record<string, string> = {
  ...Object.fromEntries(Object.entries(CLEAN).map(([path, text]) => [`packages/server/${path}`, text])),
  'bench/lib/spec.ts': 'export const spec = 1;\n',
  'bench/lib/wrk.ts': "import { spec } from './spec.ts';\nexport const wrk = spec;\n",
  'bench/lib/load.ts': "import { spec } from './spec.ts';\nimport { wrk } from './wrk.ts';\nexport const load = spec + wrk;\n",
  'bench/run.ts':
    "import { post } from '../packages/server/src/ledger/post.ts';\nimport { load } from './lib/load.ts';\nexport const run = post + load;\n",
  'packages/sdk/src/version.js': 'export const version = 1;\n',
  'packages/sdk/src/index.js': "import { version } from './version.js';\nexport const sdk = version;\n",
};
/** What `npm run lint` cruises. */
const REPO_STARTS = ['packages/server/src', 'bench', 'packages/sdk'];

/** One import added to one file of the miniature (or of REPO_CLEAN), and the one rule it must break. */
const PLANTED: { rule: string; file: string; line: string; repo?: true }[] = [
  { rule: 'no-cycles', file: 'src/shared/a.ts', line: "import './b.ts';" },
  { rule: 'shared-imports-only-shared', file: 'src/shared/b.ts', line: "import '../merchants/service.ts';" },
  { rule: 'config-imports-only-shared', file: 'src/config.ts', line: "import './merchants/service.ts';" },
  { rule: 'provider-config-imports-only-shared', file: 'src/connectors/mtn/config.ts', line: "import '../../merchants/service.ts';" },
  { rule: 'db-imports-only-shared-and-config', file: 'src/db/db.ts', line: "import '../merchants/service.ts';" },
  // Type-only imports count too: these two would vanish from the compiled JavaScript.
  { rule: 'only-routes-import-http', file: 'src/wallets/service.ts', line: "import type { Hook } from '../http/hooks.ts';" },
  { rule: 'only-entry-points-import-deps', file: 'src/payments/routes.ts', line: "import type { Deps } from '../deps.ts';" },
  { rule: 'no-route-imports-route', file: 'src/wallets/routes.ts', line: "import '../payments/routes.ts';" },
  { rule: 'ledger-imports-no-domain', file: 'src/ledger/post.ts', line: "import '../merchants/service.ts';" },
  // The cycle bench had: load.ts runs wrk, and wrk.ts took load.ts's types and helpers.
  { rule: 'no-cycles', file: 'bench/lib/wrk.ts', line: "import type { load } from './load.ts';", repo: true },
  { rule: 'server-imports-no-bench', file: 'packages/server/src/main.ts', line: "import '../../../bench/lib/spec.ts';", repo: true },
  { rule: 'sdk-imports-no-server', file: 'packages/sdk/src/index.js', line: "import '../../server/src/shared/a.ts';", repo: true },
];

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

async function violations(baseDir: string, starts: string[]): Promise<IViolation[]> {
  const options: ICruiseOptions = { ...config.options, ruleSet: { forbidden: config.forbidden }, validate: true, baseDir };
  const result = await cruise(starts, options);
  assert.equal(typeof result.output, 'object');
  if (typeof result.output === 'string') throw new Error('expected a cruise result, got a report');
  return result.output.summary.violations;
}

const describe = (found: IViolation[]) => found.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).join('\n');

test('every rule is named in the configuration once', () => {
  const names = config.forbidden.map((rule: { name: string }) => rule.name).sort();
  assert.deepEqual(names, [...new Set(PLANTED.map((p) => p.rule))].sort());
  assert.equal(new Set(names).size, names.length);
});

test('the clean miniature breaks no rule', async () => {
  const root = join(scratch, 'clean');
  writeTree(root, CLEAN);
  const found = await violations(root, ['src']);
  assert.deepEqual(found, [], describe(found));
});

test('the clean miniature laid out as the repository, with bench/ and the SDK, breaks no rule', async () => {
  const root = join(scratch, 'repo-clean');
  writeTree(root, REPO_CLEAN);
  const found = await violations(root, REPO_STARTS);
  assert.deepEqual(found, [], describe(found));
});

for (const planted of PLANTED) {
  test(`${planted.rule} catches: ${planted.file} ${planted.line}`, async () => {
    const root = join(scratch, `${planted.rule}-${planted.repo ? 'repo' : 'src'}`);
    const clean = planted.repo ? REPO_CLEAN : CLEAN;
    const file = clean[planted.file];
    assert.ok(file !== undefined, planted.file);
    writeTree(root, { ...clean, [planted.file]: `${planted.line}\n${file}` });
    const found = await violations(root, planted.repo ? REPO_STARTS : ['src']);
    assert.ok(found.length > 0, `${planted.rule} did not fire`);
    assert.deepEqual(new Set(found.map((v) => v.rule.name)), new Set([planted.rule]), describe(found));
    assert.ok(
      found.every((v) => v.from === planted.file || v.to === planted.file),
      describe(found),
    );
  });
}

test("config.ts may import a provider's config.ts, and no other file of connectors/", async () => {
  const root = join(scratch, 'config-imports-connector');
  const file = CLEAN['src/config.ts'];
  assert.ok(file !== undefined);
  writeTree(root, { ...CLEAN, 'src/config.ts': `import './connectors/mtn/connector.ts';\n${file}` });
  const found = await violations(root, ['src']);
  assert.deepEqual(
    found.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`),
    ['config-imports-only-shared: src/config.ts -> src/connectors/mtn/connector.ts'],
  );
});

test('the real source tree breaks no rule', async () => {
  const found = await violations(REPO, REPO_STARTS);
  assert.deepEqual(found, [], describe(found));
});

const run = promisify(execFile);
const BIOME = join(REPO, 'node_modules/.bin/biome');

/** Biome over one file in a folder of its own, with the repository's settings minus the git integration. */
async function biome(name: string, source: string): Promise<{ ok: boolean; output: string }> {
  const root = join(scratch, `biome-${name}`);
  const settings = JSON.parse(readFileSync(join(REPO, 'biome.json'), 'utf8'));
  delete settings.$schema;
  delete settings.vcs;
  writeTree(root, { 'biome.json': JSON.stringify(settings), 'src/file.ts': source });
  try {
    const { stdout, stderr } = await run(BIOME, ['ci', '--error-on-warnings', 'src'], { cwd: root });
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    return { ok: false, output: stdout + stderr };
  }
}

test('Biome accepts a clean file and refuses a planted formatting and lint problem', async () => {
  const clean = await biome('clean', 'export const total = (values: number[]): number => values.reduce((sum, v) => sum + v, 0);\n');
  assert.ok(clean.ok, clean.output);

  const badFormat = await biome('format', 'export const total  =  1\n');
  assert.equal(badFormat.ok, false, badFormat.output);
  assert.match(badFormat.output, /format/i);

  const badLint = await biome('lint', 'export function f(x: number): number {\n  debugger;\n  return x;\n}\n');
  assert.equal(badLint.ok, false, badLint.output);
  assert.match(badLint.output, /noDebugger/);
});
