// Invalid Unicode: a lone UTF-16 surrogate ("a\ud800b" in JSON) in any text field of any request
// body is 400 parameter_invalid naming the field, decided before any database work, and stores
// nothing. The fields come from the OpenAPI document, so a new field is covered without a new row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { usePrivatePostgres } from '../webhooks/support.ts';

// A database of its own on PostgreSQL: "nothing stored" counts rows, which other files add meanwhile.
usePrivatePostgres();

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  $ref?: string;
  additionalProperties?: boolean | Schema;
};

/** Every path in a body schema that can hold a string, as key lists (arrays: index 0; maps: a key "k"). */
function stringPaths(schema: Schema, resolve: (ref: string) => Schema, path: string[] = [], depth = 0): string[][] {
  if (depth > 8) return [];
  if (schema.$ref) return stringPaths(resolve(schema.$ref), resolve, path, depth + 1);
  const out: string[][] = [];
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
    out.push(...stringPaths(branch, resolve, path, depth + 1));
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes('string')) out.push(path);
  for (const [key, child] of Object.entries(schema.properties ?? {})) out.push(...stringPaths(child, resolve, [...path, key], depth + 1));
  if (schema.items) out.push(...stringPaths(schema.items, resolve, [...path, '0'], depth + 1));
  if (typeof schema.additionalProperties === 'object')
    out.push(...stringPaths(schema.additionalProperties, resolve, [...path, 'k'], depth + 1));
  return out;
}

function bodyWith(path: string[], value: string): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (head === '0') return [bodyWith(rest, value)];
  return { [head!]: bodyWith(rest, value) };
}

test('a lone surrogate in every string field of every /v1 and token body: 400 parameter_invalid naming the field, nothing stored', async (t) => {
  const app = await buildTestApp(t, { env: { PURSE_WORKER: 'false' } });
  const merchant = await createTestMerchant(app);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema: Schema }> } }>>;
    components: { schemas: Record<string, Schema> };
  };
  const resolve = (ref: string) => doc.components.schemas[ref.split('/').at(-1)!]!;
  const cases: { method: string; url: string; path: string[] }[] = [];
  for (const [route, ops] of Object.entries(doc.paths)) {
    if (!route.startsWith('/v1/') && route !== '/oauth/token') continue;
    for (const [method, op] of Object.entries(ops)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (!schema) continue;
      const url = route.replace(/\{id\}/g, 'pay_01jd6x8v1ffq8v2k3m4n5p6q7r');
      const seen = new Set<string>();
      for (const path of stringPaths(schema, resolve)) {
        if (path.length === 0 || seen.has(path.join('.'))) continue;
        seen.add(path.join('.'));
        cases.push({ method: method.toUpperCase(), url, path });
      }
    }
  }
  assert.ok(cases.length >= 60, `found ${cases.length} string fields`);
  for (const fields of [['holder', 'name'], ['customer', 'name'], ['payment_method', 'mobile_money', 'provider'], ['description']]) {
    assert.ok(
      cases.some((c) => c.path.join('.') === fields.join('.')),
      `${fields.join('.')} is among the fields`,
    );
  }
  const counts = async () =>
    (
      await app.deps.db.db
        .selectFrom('charges')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n;
  const before = await counts();
  const wrong: string[] = [];
  for (const c of cases) {
    for (const value of ['a\ud800b', '\udc00', 'x\ud83d']) {
      const res = await app.inject({
        method: c.method as 'POST',
        url: c.url,
        headers: { ...merchant.auth, 'content-type': 'application/json' },
        payload: JSON.stringify(bodyWith(c.path, value)),
      });
      const body = res.json() as { error?: { code?: string; param?: string } } & { error_description?: string };
      const ok =
        c.url === '/oauth/token'
          ? res.statusCode === 400
          : res.statusCode === 400 && body.error?.code === 'parameter_invalid' && body.error?.param === c.path.join('.');
      if (!ok) wrong.push(`${c.method} ${c.url} ${c.path.join('.')} ${JSON.stringify(value)} → ${res.statusCode} ${res.body}`);
    }
  }
  assert.deepEqual(wrong, []);
  assert.equal(await counts(), before, 'nothing stored');
  // A well-formed pair (an emoji) is text, and accepted.
  const emoji = await app.inject({
    method: 'POST',
    url: '/v1/wallets',
    headers: merchant.auth,
    payload: { currency: 'KES', holder: { name: 'Amina \ud83d\ude00' } },
  });
  assert.equal(emoji.statusCode, 201, emoji.body);
  assert.equal(emoji.json().holder.name, 'Amina 😀');
});
