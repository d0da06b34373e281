// The SDK's generated types follow the OpenAPI document: this fails when a route or schema changed
// and `npm run sdk:types` was not run (the checked-in file is what a user's editor reads). The
// SDK's own type tests (wrong shapes refused) are in packages/sdk/test/types.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { NUMERIC_QUERY_PARAMETERS } from '@purse/sdk';
import { generateDocument } from '../../scripts/openapi-document.ts';
import { SDK_TYPES, sdkTypes } from '../../scripts/sdk-types.ts';

test('packages/sdk/src/openapi.d.ts is what the OpenAPI document generates (npm run sdk:types)', async () => {
  const expected = await sdkTypes();
  const current = readFileSync(SDK_TYPES, 'utf8');
  assert.ok(current === expected, 'packages/sdk/src/openapi.d.ts is stale: run npm run sdk:types and commit the result');
  assert.match(current, /createPayment/);
});

test("the SDK takes numbers for exactly the document's numeric query parameters (strings of digits on the wire)", async () => {
  const document = (await generateDocument()) as {
    paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema?: { pattern?: string } }[] }>>;
  };
  const numeric = new Set<string>();
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations)) {
      for (const p of operation.parameters ?? []) if (p.in === 'query' && /^\^\[0-9\]/.test(p.schema?.pattern ?? '')) numeric.add(p.name);
    }
  }
  assert.ok(numeric.has('limit'));
  assert.deepEqual([...numeric].sort(), [...NUMERIC_QUERY_PARAMETERS].sort());
});
