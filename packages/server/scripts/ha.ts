// `npm run ha:up [-- --async]`: a local highly available PostgreSQL cluster (etcd, three
// PostgreSQL nodes under Patroni, HAProxy) in a temporary directory on free ports of 127.0.0.1;
// prints the DATABASE_URL to give Purse (HAProxy, which leads to the current primary).
// `npm run ha:down [-- <root>]`: stops it by pid and deletes its directory.
// `npm run ha:status`: the nodes, their roles and ports. The last cluster started is remembered
// in packages/server/.tmp/ha-cluster (its directory). docs/ha-cluster.md explains it.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { clusterHealth, destroyHaCluster, loadState, startHaCluster } from '../test/helpers/ha-cluster.ts';

const POINTER = fileURLToPath(new URL('../.tmp/ha-cluster', import.meta.url));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { async: { type: 'boolean', default: false }, keep: { type: 'boolean', default: false } },
});
const [command, rootArg] = positionals;

function remembered(): string {
  const root = rootArg ?? (existsSync(POINTER) ? readFileSync(POINTER, 'utf8').trim() : '');
  if (!root || !existsSync(`${root}/state.json`)) throw new Error('no cluster: give its directory, or start one with npm run ha:up');
  return root;
}

if (command === 'up') {
  const started = Date.now();
  const state = await startHaCluster({ synchronous: !values.async });
  mkdirSync(fileURLToPath(new URL('../.tmp/', import.meta.url)), { recursive: true });
  writeFileSync(POINTER, state.root);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `HA cluster up in ${seconds} s (${state.synchronous ? 'synchronous' : 'asynchronous'} replication), directory ${state.root}\n` +
      `DATABASE_URL=postgres://postgres@127.0.0.1:${state.haproxy.port}/postgres\n` +
      state.nodes.map((n) => `${n.name}: postgres ${n.pgPort}, patroni REST ${n.restPort}, pid ${n.patroniPid}\n`).join('') +
      `etcd: ${state.etcd.clientPort}\nstop it with: npm run ha:down\n`,
  );
} else if (command === 'down') {
  const root = remembered();
  await destroyHaCluster(loadState(root), values.keep);
  if (existsSync(POINTER) && readFileSync(POINTER, 'utf8').trim() === root) rmSync(POINTER);
  process.stdout.write(`HA cluster ${root} stopped${values.keep ? ' (directory kept)' : ' and deleted'}\n`);
} else if (command === 'status') {
  const state = loadState(remembered());
  const health = await clusterHealth(state);
  process.stdout.write(
    `${state.root}: ${health.ok ? 'healthy' : `not healthy (${health.why})`}, primary ${health.primary?.name ?? 'none'}\n` +
      `DATABASE_URL=postgres://postgres@127.0.0.1:${state.haproxy.port}/postgres\n`,
  );
} else {
  process.stderr.write('usage: npm run ha:up [-- --async] | npm run ha:down [-- <dir>] [-- --keep] | npm run ha:status\n');
  process.exit(2);
}
