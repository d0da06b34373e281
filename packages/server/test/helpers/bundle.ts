// Builds, once per test run (test/run.sh), the two programs the tests spawn most often as plain
// JavaScript: the operator command (src/cli/main.ts → cli.mjs) and the server (src/main.ts →
// server.mjs). Why: a child started through tsx's loader spends about 2 s of CPU more before its
// first line than the same code bundled (its hooks see every module), and the suite spawns dozens.
// Dependencies stay external (loaded from node_modules as in production); only our TypeScript is
// bundled. The lazy import of the command handlers stays a chunk of its own (splitting), so the
// refusals that never load the service still do not. test/helpers/programs.ts uses the bundle only
// when test/run.sh names its directory, which it builds afresh every run: never a stale one.
//
// Usage: node --import tsx test/helpers/bundle.ts OUT_DIR
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));
const SRC_DIR = `${SERVER_DIR}src/`;

/**
 * A module that finds its files next to itself (src/pay/routes.ts, src/dashboard/routes.ts) reads
 * `import.meta.url`; in a bundle that would be the bundle's URL. Each of our files gets its own
 * URL as a literal instead, so every path resolves exactly as under tsx. Any other use of
 * `import.meta` fails the build rather than resolving somewhere else.
 */
const ownModuleUrls: Plugin = {
  name: 'own-module-urls',
  setup(builder) {
    const escaped = SRC_DIR.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    builder.onLoad({ filter: new RegExp(`^${escaped}.*\\.ts$`) }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (/import\.meta(?!\.url\b)/.test(source)) {
        throw new Error(`${args.path}: import.meta other than import.meta.url; test/helpers/bundle.ts cannot keep its meaning`);
      }
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};

const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: bundle.ts OUT_DIR');
  process.exit(2);
}
await build({
  absWorkingDir: SERVER_DIR,
  entryPoints: { cli: 'src/cli/main.ts', server: 'src/main.ts' },
  outdir: outDir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  plugins: [ownModuleUrls],
  logLevel: 'warning',
});
