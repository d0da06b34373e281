// The SDK's generated types follow the OpenAPI document: this fails when a route or schema changed
// and `npm run sdk:types` was not run (the checked-in file is what a user's editor reads).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SDK_TYPES, sdkTypes } from '../../scripts/sdk-types.ts';

test('packages/sdk/types/openapi.d.ts is what the OpenAPI document generates (npm run sdk:types)', async () => {
  const expected = await sdkTypes();
  const current = readFileSync(SDK_TYPES, 'utf8');
  assert.ok(current === expected, 'packages/sdk/types/openapi.d.ts is stale: run npm run sdk:types and commit the result');
  assert.match(current, /createPayment/);
});
