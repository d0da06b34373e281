// Groups the suite's test files into a few processes (test/run.sh, the whole suite only).
//
// Why: every process that loads the service through tsx's loader spends about 4 s of CPU before
// its first test (the loader hooks see each of the ~2,000 modules), and the suite is CPU-bound on
// two cores. A file that needs no process of its own runs inside a shard: one process importing
// several files one after the other, each inside a suite named by its path and limited to
// FILE_TIMEOUT_MS, so a failure still names its file and a hung file stops alone.
//
// A file keeps a process of its own (a shard of one) when it drives a browser, starts child
// processes itself, installs process-wide handlers or writes process.env: sharing a process would
// let one file's state leak into the next. (Helpers that keep per-file state, such as
// test/webhooks/support.ts, keep it per file.)
//
// Usage: node --import tsx test/helpers/shards.ts OUT_DIR SHARDS FILE...; prints the shard files
// to run, heaviest first (so the longest start first).
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const FILE_TIMEOUT_MS = 300_000;
const OWN_PROCESS = /helpers\/processes|playwright|node:child_process|process\.on\(|process\.env\.[A-Z_]+ *=[^=]/;
/** A file that starts processes or a browser spends more per byte than one that only calls the app. */
const OWN_PROCESS_WEIGHT = 3;

interface Shard {
  files: string[];
  weight: number;
}

function shardSource(files: readonly string[]): string {
  const entries = files.map((file) => `  [${JSON.stringify(file)}, ${JSON.stringify(pathToFileURL(resolve(file)).href)}],`);
  return [
    "import { describe } from 'node:test';",
    'for (const [name, url] of [',
    ...entries,
    ']) {',
    `  describe(name, { timeout: ${FILE_TIMEOUT_MS} }, async () => {`,
    '    await import(url);',
    '  });',
    '}',
    '',
  ].join('\n');
}

function plan(files: readonly string[], count: number): Shard[] {
  const own: Shard[] = [];
  const shared: { file: string; weight: number }[] = [];
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    if (OWN_PROCESS.test(source)) own.push({ files: [file], weight: source.length * OWN_PROCESS_WEIGHT });
    else shared.push({ file, weight: source.length });
  }
  const shards: Shard[] = Array.from({ length: Math.max(1, count) }, () => ({ files: [], weight: 0 }));
  // Heaviest first into the lightest shard: close to even without knowing the durations.
  for (const item of shared.sort((a, b) => b.weight - a.weight)) {
    const lightest = shards.reduce((min, shard) => (shard.weight < min.weight ? shard : min));
    lightest.files.push(item.file);
    lightest.weight += item.weight;
  }
  for (const shard of shards) shard.files.sort();
  return [...own, ...shards.filter((shard) => shard.files.length > 0)].sort((a, b) => b.weight - a.weight);
}

const [outDir, count, ...files] = process.argv.slice(2);
if (!outDir || !count || files.length === 0) {
  console.error('usage: shards.ts OUT_DIR SHARDS FILE...');
  process.exit(2);
}
plan(files, Number(count)).forEach((shard, index) => {
  const name = shard.files.length === 1 ? shard.files[0]!.replace(/[/.]/g, '_') : `shard-${index + 1}`;
  const path = join(outDir, `${String(index + 1).padStart(2, '0')}-${name}.mjs`);
  writeFileSync(path, shardSource(shard.files));
  console.log(path);
});
