// The event types the README and docs/api.md list are EVENT_TYPES, the list every writer is checked
// against: this fails when a type is added (or renamed) and `npm run docs:events` was not run.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { documentPath, EVENT_LIST_FILES, renderEventList, withEventList } from '../../scripts/docs-events.ts';
import { EVENT_TYPES } from '../../src/events/store.ts';

const listed = (block: string) => [...block.matchAll(/`([a-z_]+\.[a-z_]+)`/g)].map((m) => m[1]);

for (const file of EVENT_LIST_FILES) {
  test(`${file} lists exactly EVENT_TYPES (npm run docs:events)`, () => {
    const text = readFileSync(documentPath(file), 'utf8');
    const block = /<!-- event-types:start[^>]*-->\n([\s\S]*?)<!-- event-types:end -->/.exec(text);
    assert.ok(block, `${file} has the event-types markers`);
    assert.deepEqual(listed(block[1] ?? '').sort(), [...EVENT_TYPES].sort(), `${file}: run npm run docs:events`);
    assert.equal(withEventList(file, text), text, `${file}: the list is not what npm run docs:events writes; run it`);
  });
}

test('the rendered list groups the types by object, in EVENT_TYPES order, and names each type once', () => {
  const text = renderEventList(['payment.created', 'topup.created', 'payment.failed']);
  assert.match(text, /\n- payment: `payment\.created`, `payment\.failed`\n- topup: `topup\.created`\n/);
  assert.deepEqual(
    listed(renderEventList()),
    [...EVENT_TYPES].sort((a, b) => order(a) - order(b)),
  );
});

/** EVENT_TYPES grouped by object, in the order each object first appears. */
function order(type: string): number {
  const objects = [...new Set(EVENT_TYPES.map((t) => t.split('.')[0]))];
  return objects.indexOf(type.split('.')[0]) * 100 + EVENT_TYPES.indexOf(type as (typeof EVENT_TYPES)[number]);
}
