// Writes the SDK's request and response types (packages/sdk/src/openapi.d.ts) from the OpenAPI
// document the app serves, with openapi-typescript. `--check` writes nothing and exits 1 when the
// checked-in file is not what the document gives (CI runs it through test/sdk/types.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { generateDocument } from './openapi-document.ts';

export const SDK_TYPES = fileURLToPath(new URL('../../sdk/src/openapi.d.ts', import.meta.url));

const HEADER = '// Generated from the Purse OpenAPI document by `npm run sdk:types`. Do not edit.\n';

export async function sdkTypes(): Promise<string> {
  const document = (await generateDocument()) as Parameters<typeof openapiTS>[0];
  const ast = await openapiTS(document, { exportType: false, alphabetize: false });
  return HEADER + astToString(ast);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = await sdkTypes();
  if (process.argv.includes('--check')) {
    const current = readFileSync(SDK_TYPES, 'utf8');
    if (current !== text) {
      process.stderr.write(`sdk-types: ${SDK_TYPES} is stale; run npm run sdk:types\n`);
      process.exitCode = 1;
    }
  } else {
    writeFileSync(SDK_TYPES, text);
    process.stdout.write(`sdk-types: wrote ${SDK_TYPES}\n`);
  }
}
