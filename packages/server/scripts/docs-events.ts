// Writes the list of event types into README.md and docs/api.md, between the marker comments
// <!-- event-types:start … --> and <!-- event-types:end -->, from EVENT_TYPES (src/events/store.ts),
// so the documents never miss a type. `--check` writes nothing and exits 1 when a list is stale
// (test/docs/event-types.test.ts fails in that case too).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EVENT_TYPES } from '../src/events/store.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The documents that carry the list, relative to the repository root. */
export const EVENT_LIST_FILES = ['README.md', 'docs/api.md'];

const START = '<!-- event-types:start: written by `npm run docs:events` from EVENT_TYPES; do not edit by hand -->';
const END = '<!-- event-types:end -->';
const BLOCK = /<!-- event-types:start[^>]*-->\n[\s\S]*?<!-- event-types:end -->/g;

/** One line per kind of object, in EVENT_TYPES order: `- payment: \`payment.created\`, …`. */
export function renderEventList(types: readonly string[] = EVENT_TYPES): string {
  const byObject = new Map<string, string[]>();
  for (const type of types) {
    const object = type.slice(0, type.indexOf('.'));
    byObject.set(object, [...(byObject.get(object) ?? []), type]);
  }
  const lines = [...byObject].map(([object, list]) => `- ${object}: ${list.map((t) => `\`${t}\``).join(', ')}`);
  return `${START}\n${lines.join('\n')}\n${END}`;
}

/** The document with its list (exactly one) replaced; throws when the markers are missing or repeated. */
export function withEventList(path: string, text: string): string {
  const blocks = text.match(BLOCK) ?? [];
  if (blocks.length !== 1) throw new Error(`${path}: expected one event-types block between its markers, found ${blocks.length}`);
  return text.replace(BLOCK, renderEventList());
}

export function documentPath(file: string): string {
  return `${ROOT}${file}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  for (const file of EVENT_LIST_FILES) {
    const current = readFileSync(documentPath(file), 'utf8');
    const next = withEventList(file, current);
    if (next === current) continue;
    if (check) {
      process.stderr.write(`docs-events: the event list in ${file} is stale; run npm run docs:events\n`);
      process.exitCode = 1;
    } else {
      writeFileSync(documentPath(file), next);
      process.stdout.write(`docs-events: wrote the event list in ${file}\n`);
    }
  }
}
