// Builds the test database once per run: a migrated PGlite dumped to a tarball (uncompressed: every
// test database is a copy of it, and unpacking a gzipped one costs ~0.2 s of CPU more each), or, with
// DATABASE_URL, a fresh PostgreSQL database (its URL printed for test/run.sh).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { createPgliteDb, createPostgresDb } from '../../src/db/db.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { TEMPLATE_PATH } from './database.ts';

const mode = process.argv[2];

if (mode === 'pglite') {
  const pglite = new PGlite();
  const handle = await createPgliteDb(pglite);
  await migrateToLatest(handle.db);
  const dump = await pglite.dumpDataDir('none');
  mkdirSync(dirname(TEMPLATE_PATH), { recursive: true });
  writeFileSync(TEMPLATE_PATH, Buffer.from(await dump.arrayBuffer()));
  await handle.close();
} else if (mode === 'create-postgres' || mode === 'drop-postgres') {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL is required');
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  if (mode === 'create-postgres') {
    const name = `purse_test_${process.pid}_${Date.now().toString(36)}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const handle = createPostgresDb(url.toString(), 2);
    await migrateToLatest(handle.db);
    await handle.close();
    process.stdout.write(url.toString());
  } else {
    const name = new URL(process.argv[3]!).pathname.slice(1);
    if (!/^purse_test_[a-z0-9_]+$/.test(name)) throw new Error(`refusing to drop ${name}`);
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
  await admin.end();
} else {
  throw new Error('usage: make-template.ts pglite | create-postgres | drop-postgres URL');
}
