import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.ts';

interface Operation {
  operationId?: string;
  security?: unknown[];
  responses: Record<string, unknown>;
}

interface Document {
  openapi: string;
  info: { version: string };
  components: { securitySchemes: Record<string, { type: string; flows?: { clientCredentials?: { tokenUrl: string } } }> };
  paths: Record<string, Record<string, Operation>>;
  security: Record<string, unknown>[];
}

test('GET /openapi.json is the OpenAPI 3.1 contract with OAuth 2.0 client credentials', async (t) => {
  const app = await buildTestApp(t);
  const response = await app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(response.statusCode, 200);
  const doc = response.json() as Document;
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.0.0');

  const oauth = Object.values(doc.components.securitySchemes).find((scheme) => scheme.type === 'oauth2');
  assert.equal(oauth?.flows?.clientCredentials?.tokenUrl, '/oauth/token');
  const oauthName = Object.keys(doc.components.securitySchemes).find((name) => doc.components.securitySchemes[name] === oauth)!;
  assert.ok(
    doc.security.some((requirement) => oauthName in requirement),
    'operations require the oauth2 scheme by default',
  );

  const token = doc.paths['/oauth/token']?.post;
  assert.ok(token, 'POST /oauth/token is documented');
  assert.deepEqual(token.security, [], 'the token endpoint needs no token');
  assert.ok(token.responses['200'] && token.responses['401']);

  const merchant = doc.paths['/v1/merchant']?.get;
  assert.ok(merchant, 'GET /v1/merchant is documented');
  assert.equal(merchant.security, undefined, 'v1 operations inherit the document-wide security');
  assert.ok(merchant.responses['200'] && merchant.responses['401']);
});
