import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { CARD_OK, paymentBody, post } from '../helpers/factories.ts';

interface Operation {
  operationId?: string;
  description?: string;
  security?: unknown[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, unknown>;
}

interface Document {
  openapi: string;
  info: { version: string; title: string; description: string };
  components: {
    securitySchemes: Record<string, { type: string; scheme?: string; flows?: { clientCredentials?: { tokenUrl: string } } }>;
  };
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
  assert.ok(
    token.security?.every((requirement) => !Object.keys(requirement as object).some((name) => name === oauthName || name === 'bearerAuth')),
    'the token endpoint needs no token',
  );
  assert.ok(token.responses['200'] && token.responses['401']);

  const merchant = doc.paths['/v1/merchant']?.get;
  assert.ok(merchant, 'GET /v1/merchant is documented');
  assert.equal(merchant.security, undefined, 'v1 operations inherit the document-wide security');
  assert.ok(merchant.responses['200'] && merchant.responses['401']);
});

test('the reference opens on the API: a short overview, the decisions in docs/api-decisions.md', async (t) => {
  const app = await buildTestApp(t);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document;
  assert.equal(doc.info.title, 'Purse API');
  assert.doesNotMatch(doc.info.description, /Decisions where|\n- \*\*/, 'no list of decisions at the top');
  assert.ok(doc.info.description.length < 1000, `the overview is ${doc.info.description.length} characters`);
  assert.match(doc.info.description, /docs\/api-decisions\.md/);
  const decisions = readFileSync(new URL('../../../../docs/api-decisions.md', import.meta.url), 'utf8');
  assert.match(decisions, /^# API decisions where the v1 contract is silent\n/);
  for (const topic of ['Wallet references', 'Transfers', 'Refunds', 'Payouts', 'Input hygiene', 'Limits']) {
    assert.match(decisions, new RegExp(`^- \\*\\*${topic}`, 'm'), topic);
  }
});

test('/docs lists the operations a merchant calls first: every tag is declared, Operations and Provider callbacks last', async (t) => {
  const app = await buildTestApp(t);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document & { tags: { name: string }[] };
  const declared = doc.tags.map((tag) => tag.name);
  // Swagger UI shows declared tags in their order, then undeclared ones: an undeclared tag would sink below the operator's.
  const used = new Set(
    Object.values(doc.paths).flatMap((methods) => Object.values(methods).flatMap((op) => (op as { tags?: string[] }).tags ?? [])),
  );
  for (const tag of used) assert.ok(declared.includes(tag), `${tag} is declared`);
  assert.deepEqual(declared.slice(0, 3), ['Authentication', 'Merchant', 'Payments']);
  assert.deepEqual(declared.slice(-2), ['Operations', 'Provider callbacks']);
});

test('POST /oauth/token documents its three forms: JSON, form-encoded, HTTP Basic client authentication', async (t) => {
  const app = await buildTestApp(t);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document;
  const token = doc.paths['/oauth/token']!.post!;
  assert.deepEqual(Object.keys(token.requestBody?.content ?? {}).sort(), ['application/json', 'application/x-www-form-urlencoded']);
  const basic = Object.entries(doc.components.securitySchemes).find(([, s]) => s.type === 'http' && s.scheme === 'basic');
  assert.ok(basic, 'an HTTP Basic security scheme');
  assert.deepEqual(token.security, [{}, { [basic[0]]: [] }], 'no authentication (credentials in the body), or HTTP Basic');
  for (const form of [/application\/json/, /application\/x-www-form-urlencoded/, /HTTP Basic/]) assert.match(token.description ?? '', form);
});

test("/docs shows Purse: its title, its icon and its name in the top bar, not the framework's", async (t) => {
  const app = await buildTestApp(t);
  const page = await app.inject({ method: 'GET', url: '/docs/' });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<title>Purse API reference<\/title>/);
  const icon = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/.exec(page.body)?.[1];
  assert.ok(icon, page.body);
  assert.doesNotMatch(page.body, /favicon-(16|32)x/, "Swagger's icons are gone");
  const iconRes = await app.inject({ method: 'GET', url: `/docs/${icon.replace(/^\.\//, '')}` });
  assert.equal(iconRes.statusCode, 200);
  assert.match(iconRes.body, /<svg/);
  const initializer = (await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })).body;
  const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer)?.[1];
  assert.ok(logo, 'the top bar gets a logo');
  const svg = Buffer.from(logo, 'base64').toString('utf8');
  assert.match(svg, />Purse API</);
  assert.doesNotMatch(svg, /fastify|swagger/i);
});

test('a means of payment or payout is a oneOf discriminated on type, one named variant per type, in the document and in validation', async (t) => {
  const app = await buildTestApp(t);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const body = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema.properties;
  const cases = [
    ['/v1/payments', 'payment_method', { mobile_money: 'MobileMoneyMethod', card: 'CardMethod', wallet: 'WalletMethod' }],
    ['/v1/topups', 'source', { mobile_money: 'MobileMoneyMethod', card: 'CardMethod' }],
    ['/v1/payouts', 'destination', { mobile_money: 'MobileMoneyMethod', wallet: 'WalletMethod' }],
  ] as const;
  for (const [path, field, variants] of cases) {
    const schema = body(path)[field];
    const refs = Object.fromEntries(Object.entries(variants).map(([type, name]) => [type, `#/components/schemas/${name}`]));
    assert.deepEqual(schema.discriminator, { propertyName: 'type', mapping: refs }, `${path} ${field}`);
    assert.deepEqual(
      schema.oneOf.map((v: { $ref: string }) => v.$ref),
      Object.values(refs),
    );
    for (const [type, name] of Object.entries(variants)) {
      const variant = doc.components.schemas[name];
      assert.deepEqual(variant.properties.type.enum, [type]);
      assert.deepEqual(variant.required, ['type', type]);
      for (const other of Object.keys(variant.properties).filter((k) => k !== 'type' && k !== type)) {
        assert.equal(variant.properties[other], false, `${name}.${other} is refused`);
      }
    }
  }
});

test('the variant a type chose refuses another means: the message names the type', async (t) => {
  const app = await buildTestApp(t);
  const merchant = await createTestMerchant(app);
  const both = { type: 'card', card: CARD_OK, mobile_money: { phone_number: '+254712345000' } };
  const res = await post(app, merchant, '/v1/payments', paymentBody({ payment_method: both }));
  assert.equal(res.statusCode, 400, res.body);
  assert.equal(res.json().error.param, 'payment_method.mobile_money');
  assert.equal(res.json().error.message, 'payment_method.mobile_money is not allowed when payment_method.type is card.');
  const payout = { reference: 'p-1', amount: '1.00', currency: 'KES', destination: { type: 'mobile_money', mobile_money: {} } };
  const missing = await post(app, merchant, '/v1/payouts', payout);
  assert.equal(missing.json().error.param, 'destination.mobile_money.phone_number', missing.body);
});
