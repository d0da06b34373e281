import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { TypeID } from 'typeid-js';
import { isIdOf, typeIdSql } from '../../src/shared/ids.ts';
import { openTestDb } from '../helpers/database.ts';

test('typeIdSql makes UUIDv7 TypeIDs that carry the given time and sort by it', async () => {
  // The run's test database (a copy of the PGlite template, or PostgreSQL): a fresh in-memory
  // PGlite would spend ~4 s of CPU creating a cluster for one query.
  const db = await openTestDb();
  try {
    const at = new Date('2024-11-05T10:20:30.456Z');
    const later = new Date(at.getTime() + 1);
    const { rows } = await sql<{ a: string; b: string }>`SELECT ${typeIdSql('delivery', 't.at')} AS a, ${typeIdSql('delivery', 'u.at')} AS b
      FROM generate_series(1, 50), (SELECT ${at}::timestamptz AS at) t, (SELECT ${later}::timestamptz AS at) u`.execute(db.db);
    const ids = rows.flatMap((r) => [r.a, r.b]);
    assert.equal(new Set(ids).size, 100);
    for (const row of rows) {
      assert.ok(isIdOf('delivery', row.a), row.a);
      assert.ok(row.a < row.b, `${row.a} < ${row.b}`);
      const uuid = TypeID.fromString(row.a).toUUID();
      assert.equal(uuid[14], '7', uuid);
      assert.match(uuid[19] ?? '', /[89ab]/);
      assert.equal(Number.parseInt(uuid.replaceAll('-', '').slice(0, 12), 16), at.getTime());
    }
  } finally {
    await db.close();
  }
});
