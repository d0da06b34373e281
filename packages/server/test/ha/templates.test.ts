// The HA cluster's templates (deploy/ha/) keep the settings a failover without loss depends on
// (docs/ha-cluster.md), and the renderer refuses a placeholder it has no value for. Starting the
// cluster itself needs patroni, etcd and haproxy: the fault suite's ha-failover does that.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { renderTemplate, TEMPLATES_DIR } from '../helpers/ha-cluster.ts';

const read = (file: string) => readFileSync(join(TEMPLATES_DIR, file), 'utf8');

function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!))];
}

test('the Patroni template: strict synchronous mode, the timings, mmap DSM, rewind', () => {
  const text = read('patroni.yml.tmpl');
  const values = Object.fromEntries(placeholders(text).map((k) => [k, `v-${k}`]));
  const yml = renderTemplate(text, values);
  // Synchronous mode is a placeholder (the negative control turns it off); startHaCluster turns it on by default.
  for (const line of [
    'synchronous_mode: v-synchronousMode',
    'synchronous_mode_strict: v-synchronousModeStrict',
    'synchronous_commit: "on"',
    'primary_start_timeout: 0',
    'ttl: 20',
    'loop_wait: 2',
    'retry_timeout: 5',
    'wal_retrieve_retry_interval: 1s',
    'dynamic_shared_memory_type: mmap',
    'use_pg_rewind: true',
  ])
    assert.ok(
      yml.split('\n').some((l) => l.trim() === line),
      `missing: ${line}`,
    );
  assert.doesNotMatch(yml, /\{\{/);
});

test('the HAProxy template checks /primary and cuts sessions to a node marked down', () => {
  const cfg = renderTemplate(read('haproxy.cfg.tmpl'), {
    host: '127.0.0.1',
    primaryPort: 5000,
    servers: '    server n1 127.0.0.1:5432 check port 8008',
  });
  assert.match(cfg, /option httpchk OPTIONS \/primary/);
  assert.match(cfg, /http-check expect status 200/);
  assert.match(cfg, /on-marked-down shutdown-sessions/);
  assert.match(cfg, /bind 127\.0\.0\.1:5000/);
});

test('the etcd flags name every address they are given', () => {
  const flags = renderTemplate(read('etcd.conf.tmpl'), {
    name: 'e0',
    dataDir: '/d',
    host: '127.0.0.1',
    clientPort: 1,
    peerPort: 2,
    token: 't',
  });
  assert.match(flags, /--listen-client-urls=http:\/\/127\.0\.0\.1:1/);
  assert.match(flags, /--initial-cluster=e0=http:\/\/127\.0\.0\.1:2/);
});

test('a placeholder without a value is an error, not an empty string', () => {
  assert.throws(() => renderTemplate('port {{port}} {{host}}', { port: 1 }), /\{\{host\}\} has no value/);
  assert.equal(renderTemplate('{{a}}-{{a}}', { a: 'x' }), 'x-x');
});
