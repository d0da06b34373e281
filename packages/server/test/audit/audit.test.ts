// The audit log: each listed act leaves exactly one record, with its actor, target, address, user
// agent and request id; the chain verifies; a changed, deleted or inserted record is found by
// verify; the database refuses UPDATE, DELETE and TRUNCATE of records.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { keyWith } from '../api-keys/support.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { get, post } from '../helpers/factories.ts';

async function records(app: TestApp, merchantId: string) {
  return app.deps.db.db.selectFrom('audit_events').selectAll().where('merchant_id', '=', merchantId).orderBy('seq').execute();
}

async function auditList(app: TestApp, m: TestMerchant, query = '') {
  const res = await get(app, m, `/v1/audit_events${query}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as { action: string; actor: { type: string; id: string }; target: { id: string }; [k: string]: unknown }[];
}

test("the operator's acts: merchant created, secret rotated, disabled, enabled: one record each", async (t) => {
  const app = await buildTestApp(t);
  const m = await createTestMerchant(app);
  const merchants = app.deps.services.merchants;
  assert.ok((await merchants.rotateSecret(m.merchantId)).ok);
  assert.ok((await merchants.setStatus(m.merchantId, 'disabled')).ok);
  assert.ok((await merchants.setStatus(m.merchantId, 'active')).ok);
  const rows = await records(app, m.merchantId);
  assert.deepEqual(
    rows.map((r) => [r.action, r.actor_type, r.actor_id, r.target_type, r.target_id]),
    [
      ['merchant.created', 'operator', null, 'merchant', m.merchantId],
      ['merchant.secret_rotated', 'operator', null, 'merchant', m.merchantId],
      ['merchant.disabled', 'operator', null, 'merchant', m.merchantId],
      ['merchant.enabled', 'operator', null, 'merchant', m.merchantId],
    ],
  );
  assert.deepEqual((await app.deps.services.audit.verify([m.merchantId]))[0], { ok: true, merchantId: m.merchantId, records: 4 });
});

test('key created, rolled, revoked: one record each, with the key, address, user agent and request id', async (t) => {
  const app = await buildTestApp(t);
  const m = await createTestMerchant(app);
  const [first] = (await get(app, m, '/v1/api_keys')).json().data;
  const headers = { ...m.auth, 'user-agent': 'audit-test/1.0' };
  const created = await app.inject({ method: 'POST', url: '/v1/api_keys', headers, payload: { name: 'ci', scopes: ['payments:read'] } });
  const id = created.json().id;
  const rolled = await app.inject({ method: 'POST', url: `/v1/api_keys/${id}/roll`, headers, payload: { overlap_seconds: 60 } });
  assert.equal(rolled.statusCode, 200, rolled.body);
  const revoked = await app.inject({ method: 'DELETE', url: `/v1/api_keys/${id}`, headers });
  await app.inject({ method: 'DELETE', url: `/v1/api_keys/${id}`, headers }); // already revoked: no second record
  const list = (await auditList(app, m)).filter((e) => e.action.startsWith('api_key.'));
  assert.deepEqual(
    list.map((e) => e.action),
    ['api_key.revoked', 'api_key.rolled', 'api_key.created'],
  );
  const byAction = Object.fromEntries(list.map((e) => [e.action, e]));
  for (const [action, res] of [
    ['api_key.created', created],
    ['api_key.rolled', rolled],
    ['api_key.revoked', revoked],
  ] as const) {
    const e = byAction[action]!;
    assert.deepEqual(e.actor, { type: 'api_key', id: first.id });
    assert.deepEqual(e.target, { type: 'api_key', id });
    assert.equal(e.ip_address, '127.0.0.1');
    assert.equal(e.user_agent, 'audit-test/1.0');
    assert.equal(e.request_id, res.headers['request-id']);
  }
  assert.deepEqual(byAction['api_key.created']!.changes, { name: 'ci', scopes: ['payments:read'] });
  assert.equal(JSON.stringify(list).includes(created.json().client_secret), false, 'no secret in the log');
  const filtered = await auditList(app, m, '?action=api_key.rolled');
  assert.deepEqual(
    filtered.map((e) => e.action),
    ['api_key.rolled'],
  );
  const reader = await keyWith(app, m, ['payments:read']);
  assert.equal((await get(app, { ...m, auth: reader.auth }, '/v1/audit_events')).statusCode, 403, 'the log needs scope all');
});

test('the database refuses UPDATE, DELETE and TRUNCATE of audit records', async (t) => {
  const app = await buildTestApp(t);
  const m = await createTestMerchant(app);
  const db = app.deps.db.db;
  await assert.rejects(db.updateTable('audit_events').set({ action: 'forged' }).where('merchant_id', '=', m.merchantId).execute(), {
    code: '42501',
  });
  await assert.rejects(db.deleteFrom('audit_events').where('merchant_id', '=', m.merchantId).execute(), { code: '42501' });
  await assert.rejects(sql`TRUNCATE audit_events`.execute(db), { code: '42501' });
  assert.equal((await records(app, m.merchantId)).length, 1, 'the record is still there');
  // Negative control: the same UPDATE on an ordinary table goes through.
  const updated = await db.updateTable('merchants').set({ name: 'renamed' }).where('id', '=', m.merchantId).executeTakeFirst();
  assert.equal(updated.numUpdatedRows, 1n);
});

/** As a superuser can: with triggers off for this transaction only. */
async function tamper(app: TestApp, statement: ReturnType<typeof sql>): Promise<void> {
  await app.deps.db.db.transaction().execute(async (trx) => {
    await sql`SET LOCAL session_replication_role = replica`.execute(trx);
    await statement.execute(trx);
  });
}

async function chainOfFive(t: Parameters<typeof buildTestApp>[0]) {
  const app = await buildTestApp(t);
  const m = await createTestMerchant(app);
  for (let i = 0; i < 2; i++) await post(app, m, '/v1/api_keys', { name: `k${i}`, scopes: ['all'] });
  assert.ok((await app.deps.services.merchants.rotateSecret(m.merchantId)).ok);
  assert.ok((await app.deps.services.merchants.setRawCardData(m.merchantId, false)).ok);
  const rows = await records(app, m.merchantId);
  assert.equal(rows.length, 5);
  assert.equal((await app.deps.services.audit.verify([m.merchantId]))[0]!.ok, true);
  return { app, m, rows };
}

test('verify finds a changed record', async (t) => {
  const { app, m, rows } = await chainOfFive(t);
  await tamper(app, sql`UPDATE audit_events SET changes = '{"name":"innocent"}' WHERE id = ${rows[2]!.id}`);
  const [verdict] = await app.deps.services.audit.verify([m.merchantId]);
  assert.equal(verdict!.ok, false);
  assert.deepEqual(verdict!.ok ? null : verdict!.brokenAt, { seq: 3, id: rows[2]!.id });
});

test('verify finds a deleted record, in the middle and at the end', async (t) => {
  const { app, m, rows } = await chainOfFive(t);
  await tamper(app, sql`DELETE FROM audit_events WHERE id = ${rows[1]!.id}`);
  const [middle] = await app.deps.services.audit.verify([m.merchantId]);
  assert.deepEqual(middle!.ok ? null : middle!.brokenAt, { seq: 2, id: rows[2]!.id });
  const second = await chainOfFive(t);
  await tamper(second.app, sql`DELETE FROM audit_events WHERE id = ${second.rows[4]!.id}`);
  const [end] = await second.app.deps.services.audit.verify([second.m.merchantId]);
  assert.equal(end!.ok, false);
  assert.deepEqual(end!.ok ? null : end!.brokenAt, { seq: 5, id: null });
});

test('verify finds an inserted record', async (t) => {
  const { app, m, rows } = await chainOfFive(t);
  const r = rows[2]!;
  // A forged record slipped in as seq 3, the later ones moved up: the seq and hashes no longer follow.
  await tamper(app, sql`UPDATE audit_events SET seq = -seq WHERE merchant_id = ${m.merchantId} AND seq >= 3`);
  await tamper(app, sql`UPDATE audit_events SET seq = 1 - seq WHERE merchant_id = ${m.merchantId} AND seq < 0`);
  await tamper(
    app,
    sql`INSERT INTO audit_events (id, merchant_id, seq, action, actor_type, target_type, target_id, created_at, prev_hash, hash)
        VALUES ('aud_forged', ${m.merchantId}, 3, 'api_key.created', 'operator', 'merchant', ${m.merchantId}, now(), ${rows[1]!.hash}, ${r.hash})`,
  );
  const [verdict] = await app.deps.services.audit.verify([m.merchantId]);
  assert.equal(verdict!.ok, false);
  assert.deepEqual(verdict!.ok ? null : verdict!.brokenAt, { seq: 3, id: 'aud_forged' });
});

test('a merchant inserted any way has its chain head (a trigger on merchants), so nothing it does goes unrecorded', async (t) => {
  const app = await buildTestApp(t);
  const db = app.deps.db.db;
  const now = new Date();
  await db
    .insertInto('merchants')
    .values({
      id: 'mer_direct',
      name: 'Direct',
      status: 'active',
      livemode: false,
      client_id: 'cli_direct',
      created_at: now,
      updated_at: now,
    })
    .execute();
  const head = await db.selectFrom('audit_heads').selectAll().where('merchant_id', '=', 'mer_direct').executeTakeFirst();
  assert.deepEqual(head, { merchant_id: 'mer_direct', seq: '0', hash: '' });
  assert.ok((await app.deps.services.merchants.setStatus('mer_direct', 'disabled')).ok);
  assert.deepEqual(
    (await records(app, 'mer_direct')).map((r) => r.action),
    ['merchant.disabled'],
  );
});
