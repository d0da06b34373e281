// `npm pack` gives a package a merchant can install: only the built output, the README and
// package.json; it imports as ESM from a project outside this repository (with nothing but the
// dependencies it declares beside it) and a small consumer type-checks against its .d.ts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SDK = fileURLToPath(new URL('..', import.meta.url));
const repoRequire = createRequire(join(SDK, 'package.json'));
let work: string;
let files: string[];
let project: string;

/** Links `name` and, through their package.json, its dependencies from this repository's install. */
function linkDependency(name: string, into: string, from: NodeJS.Require): void {
  const target = join(into, 'node_modules', name);
  try {
    readFileSync(join(target, 'package.json'));
    return;
  } catch {
    // not linked yet
  }
  const manifest = from.resolve(`${name}/package.json`);
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(dirname(manifest), target, 'dir');
  const dependencies = Object.keys(JSON.parse(readFileSync(manifest, 'utf8')).dependencies ?? {});
  for (const dependency of dependencies) linkDependency(dependency, into, createRequire(manifest));
}

before(() => {
  work = mkdtempSync(join(tmpdir(), 'purse-sdk-pack-'));
  // prepack builds dist/ first, so the tarball holds what the sources give now.
  const out = execFileSync('npm', ['pack', '--pack-destination', work, '--json', '--loglevel=error'], { cwd: SDK, encoding: 'utf8' });
  const [packed] = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  files = packed!.files.map((f) => f.path).sort();
  // Installed as npm would: the package under node_modules, its declared dependencies beside it.
  project = join(work, 'shop');
  const installed = join(project, 'node_modules', '@purse', 'sdk');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(work, packed!.filename), '-C', installed, '--strip-components=1']);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'shop', private: true, type: 'module' }));
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  for (const name of Object.keys(manifest.dependencies ?? {})) linkDependency(name, project, repoRequire);
});

after(() => rmSync(work, { recursive: true, force: true }));

test('the tarball holds dist/ (JavaScript and declarations), README.md and package.json, nothing else', () => {
  const outside = files.filter((f) => !f.startsWith('dist/') && f !== 'README.md' && f !== 'package.json');
  assert.deepEqual(outside, []);
  assert.ok(files.includes('dist/index.js') && files.includes('dist/index.d.ts') && files.includes('dist/openapi.d.ts'), files.join(' '));
  assert.deepEqual(
    files.filter((f) => /\.test\.|\/test\/|\.map$/.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts'))),
    [],
    'no tests, no TypeScript sources, no source maps',
  );
});

test('it imports as ESM from a project of its own, and verifies a webhook with its declared dependency', () => {
  const script = `
    import { Purse, PurseError } from '@purse/sdk';
    import { Webhook } from 'standardwebhooks';
    const secret = 'whsec_' + Buffer.from('a test secret of 32 bytes please').toString('base64');
    const body = '{"id":"evt_1","type":"payment.succeeded"}';
    const at = new Date();
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(at / 1000)), 'webhook-signature': new Webhook(secret).sign('evt_1', at, body) };
    let refused = '';
    try { Purse.webhooks.verify(JSON.parse(body), headers, secret); } catch (e) { refused = e instanceof PurseError ? e.code : String(e); }
    console.log(typeof new Purse({ baseUrl: 'http://127.0.0.1:1', clientId: 'c', clientSecret: 's' }).payments.create, Purse.webhooks.verify(Buffer.from(body), headers, secret).type, refused);
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' });
  assert.equal(out.trim(), 'function payment.succeeded body_not_raw');
});

test("a consumer type-checks against the package's .d.ts (strict, NodeNext), and a wrong shape does not", () => {
  const consumer = join(project, 'consumer.ts');
  writeFileSync(
    consumer,
    `import { Purse, PurseError, type Payment, type PaymentMethodInput } from '@purse/sdk';
const purse = new Purse({ baseUrl: 'https://pay.example.com', clientId: 'cli_1', clientSecret: 'sk_live_1' });
const method: PaymentMethodInput = { type: 'mobile_money', mobile_money: { phone_number: '+254712345678' } };
export async function pay(): Promise<Payment> {
  const first = await purse.payments.list({ limit: 1 });
  if (first.data[0]) return first.data[0];
  // @ts-expect-error limit is a number
  await purse.payments.list({ limit: '1' });
  // @ts-expect-error one means at a time
  await purse.payments.create({ reference: 'r', amount: '1.00', currency: 'KES', payment_method: { type: 'card', mobile_money: { phone_number: '+254712345678' } } });
  return purse.payments.create({ reference: 'r', amount: '1.00', currency: 'KES', payment_method: method });
}
export const isPurseError = (e: unknown): e is PurseError => e instanceof PurseError && typeof e.requestId !== 'number';
`,
  );
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
    // The package's own declarations are checked too.
    skipLibCheck: false,
  };
  const program = ts.createProgram([consumer], options);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  assert.deepEqual(
    diagnostics.map((d) => `${d.file?.fileName ?? ''}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`),
    [],
  );
  const sdk = program.getSourceFiles().find((f) => f.fileName.endsWith('/node_modules/@purse/sdk/dist/index.d.ts'));
  assert.ok(sdk, 'the types came from the installed package');
});
