// A highly available PostgreSQL cluster on this machine, for the fault suite (`ha-failover`) and a
// developer (`npm run ha:up` / `npm run ha:down`): one etcd, three PostgreSQL nodes each under
// Patroni, and HAProxy sending connections to the current primary, all on free ports of
// 127.0.0.1 in one temporary directory, rendered from the templates in deploy/ha/. Nothing is
// shared with the machine's own PostgreSQL. Every process is stopped by its pid (or the process
// group it leads); the cluster's state (pids, ports, directories) is kept in <root>/state.json so
// another process can tear it down.
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import {
  alive,
  aliveWith,
  childrenNamed,
  killNodeProcesses,
  postgresUser,
  postmasterOf,
  removeOrphanSegments,
  spawnDetached,
  stopGroup,
} from './ha-processes.ts';
import { sleep } from './processes.ts';

export const TEMPLATES_DIR = fileURLToPath(new URL('../../../../deploy/ha/', import.meta.url));
const HOST = '127.0.0.1';

export interface HaNode {
  name: string;
  pgPort: number;
  restPort: number;
  dir: string;
  dataDir: string;
  configFile: string;
  logFile: string;
  /** Patroni's pid (the leader of its process group); null while the node is down. */
  patroniPid: number | null;
  /** Shared memory segments of postmasters killed on this node, removed at teardown if still orphaned. */
  shmids: number[];
}

export interface HaClusterState {
  root: string;
  scope: string;
  synchronous: boolean;
  etcd: { pid: number; clientPort: number; peerPort: number; logFile: string };
  haproxy: { pid: number; port: number; configFile: string; logFile: string };
  nodes: HaNode[];
}

export interface HaOptions {
  /** synchronous_mode and synchronous_mode_strict (default true). false: asynchronous replication. */
  synchronous?: boolean;
  /** Patroni's maximum_lag_on_failover in bytes (default 1 MiB, Patroni's own). */
  maximumLagOnFailover?: number;
  nodes?: number;
  maxConnections?: number;
}

/** Fills `{{key}}` placeholders; a placeholder without a value is an error, not an empty string. */
export function renderTemplate(text: string, values: Record<string, string | number | boolean>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    if (!(key in values)) throw new Error(`template placeholder {{${key}}} has no value`);
    return String(values[key]);
  });
}

const template = (file: string) => readFileSync(join(TEMPLATES_DIR, file), 'utf8');

export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))) : [];
  if (versions.length === 0) throw new Error(`no PostgreSQL binaries under ${root}/*/bin`);
  versions.sort((a, b) => Number(b) - Number(a));
  return join(root, versions[0]!, 'bin');
}

/** The tools the cluster needs, or what is missing (Debian: apt-get install -y patroni etcd-server haproxy). */
export function haToolsMissing(): string[] {
  const path = (process.env.PATH ?? '/usr/bin:/bin').split(':').concat(['/usr/sbin', '/usr/bin']);
  const has = (tool: string) => path.some((dir) => existsSync(join(dir, tool)));
  const missing = ['patroni', 'etcd', 'haproxy'].filter((t) => !has(t));
  try {
    postgresBinDir();
  } catch {
    missing.push('postgresql');
  }
  return missing;
}

const chosen = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

/**
 * A free port below the kernel's ephemeral range: Patroni, PostgreSQL and etcd bind their ports
 * some seconds after they are chosen, and a port from the ephemeral range (what listen(0) gives)
 * can be taken meanwhile by any outgoing connection or test server of the machine.
 */
export async function freeClusterPort(): Promise<number> {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    /* not Linux: the usual default */
  }
  const from = Math.min(20_000, low - 2_000);
  for (let i = 0; i < 200; i++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (chosen.has(port) || !(await bindable(port))) continue;
    chosen.add(port);
    return port;
  }
  throw new Error(`no free port between ${from} and ${low}`);
}

const url = (port: number, database = 'postgres') => `postgres://postgres@${HOST}:${port}/${database}`;

function etcdArgs(root: string, clientPort: number, peerPort: number, scope: string): string[] {
  const text = renderTemplate(template('etcd.conf.tmpl'), {
    name: 'etcd0',
    dataDir: join(root, 'etcd'),
    host: HOST,
    clientPort,
    peerPort,
    token: scope,
  });
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

async function writeNodeConfig(root: string, i: number, scope: string, etcdPort: number, o: Required<HaOptions>): Promise<HaNode> {
  const name = `node${i + 1}`;
  const dir = join(root, name);
  mkdirSync(dir, { mode: 0o700 });
  const node: HaNode = {
    name,
    pgPort: await freeClusterPort(),
    restPort: await freeClusterPort(),
    dir,
    dataDir: join(dir, 'data'),
    configFile: join(dir, 'patroni.yml'),
    logFile: join(dir, 'patroni.log'),
    patroniPid: null,
    shmids: [],
  };
  const yml = renderTemplate(template('patroni.yml.tmpl'), {
    scope,
    name,
    host: HOST,
    restPort: node.restPort,
    pgPort: node.pgPort,
    etcdHosts: `${HOST}:${etcdPort}`,
    synchronousMode: o.synchronous,
    synchronousModeStrict: o.synchronous,
    maximumLagOnFailover: o.maximumLagOnFailover,
    maxConnections: o.maxConnections,
    dataDir: node.dataDir,
    binDir: postgresBinDir(),
    nodeDir: dir,
  });
  writeFileSync(node.configFile, yml);
  return node;
}

function writeHaproxyConfig(root: string, port: number, nodes: HaNode[]): string {
  const servers = nodes.map((n) => `    server ${n.name} ${HOST}:${n.pgPort} maxconn 300 check port ${n.restPort}`).join('\n');
  const file = join(root, 'haproxy.cfg');
  writeFileSync(file, renderTemplate(template('haproxy.cfg.tmpl'), { host: HOST, primaryPort: port, servers }));
  return file;
}

function chownTree(dir: string): void {
  const user = postgresUser();
  if (!user) return;
  chownSync(dir, user.uid, user.gid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) chownTree(path);
    else chownSync(path, user.uid, user.gid);
  }
}

export function saveState(state: HaClusterState): void {
  writeFileSync(join(state.root, 'state.json'), JSON.stringify(state, null, 2));
}

export function loadState(root: string): HaClusterState {
  return JSON.parse(readFileSync(join(root, 'state.json'), 'utf8')) as HaClusterState;
}

async function httpStatus(href: string, timeoutMs = 1_000): Promise<number | null> {
  try {
    const res = await fetch(href, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return null;
  }
}

/** The node whose Patroni answers GET /primary with 200 (null when none does). */
export async function findPrimary(state: HaClusterState): Promise<HaNode | null> {
  for (const node of state.nodes) {
    if (node.patroniPid === null) continue;
    if ((await httpStatus(`http://${HOST}:${node.restPort}/primary`)) === 200) return node;
  }
  return null;
}

async function query<T extends pg.QueryResultRow>(connectionString: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2_000, query_timeout: 5_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Healthy: one primary, reachable through HAProxy and not in recovery, every running node
 * streaming from it, and (synchronous mode) a synchronous standby.
 */
export async function clusterHealth(state: HaClusterState): Promise<{ ok: boolean; primary: HaNode | null; why: string }> {
  const primary = await findPrimary(state);
  if (!primary) return { ok: false, primary, why: 'no node answers /primary' };
  const running = state.nodes.filter((n) => n.patroniPid !== null).length;
  try {
    const [viaProxy] = await query<{ r: boolean; port: number }>(
      url(state.haproxy.port),
      "SELECT pg_is_in_recovery() AS r, current_setting('port')::int AS port",
    );
    if (!viaProxy || viaProxy.r || viaProxy.port !== primary.pgPort)
      return { ok: false, primary, why: 'HAProxy does not lead to the primary yet' };
    const standbys = await query<{ sync_state: string }>(
      url(primary.pgPort),
      "SELECT sync_state FROM pg_stat_replication WHERE state = 'streaming'",
    );
    if (standbys.length < running - 1) return { ok: false, primary, why: `${standbys.length} of ${running - 1} standbys streaming` };
    if (state.synchronous && !standbys.some((s) => s.sync_state === 'sync')) return { ok: false, primary, why: 'no synchronous standby' };
  } catch (error) {
    return { ok: false, primary, why: (error as Error).message };
  }
  return { ok: true, primary, why: '' };
}

export async function waitHealthy(state: HaClusterState, timeoutMs: number): Promise<HaNode> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const health = await clusterHealth(state);
    if (health.ok && health.primary) return health.primary;
    const dead = state.nodes.find((n) => n.patroniPid !== null && !alive(n.patroniPid));
    if (dead) throw new Error(`Patroni of ${dead.name} exited\n${logsTail(state)}`);
    if (Date.now() > deadline) throw new Error(`cluster not healthy after ${timeoutMs} ms: ${health.why}\n${logsTail(state)}`);
    await sleep(250);
  }
}

export function logsTail(state: HaClusterState, chars = 1500): string {
  const tail = (file: string) => {
    try {
      return readFileSync(file, 'utf8').slice(-chars);
    } catch {
      return '';
    }
  };
  const files = [...state.nodes.map((n) => [n.name, n.logFile]), ['haproxy', state.haproxy.logFile], ['etcd', state.etcd.logFile]];
  return files.map(([name, file]) => `--- ${name} (${file})\n${tail(file!)}`).join('\n');
}

export function startNode(state: HaClusterState, node: HaNode): void {
  if (node.patroniPid !== null && alive(node.patroniPid)) throw new Error(`${node.name} is running (Patroni ${node.patroniPid})`);
  node.patroniPid = spawnDetached('patroni', [node.configFile], node.logFile, node.dir);
  saveState(state);
}

/**
 * The node dies as a machine would: Patroni's process group, the postmaster, its session and
 * children all SIGKILLed at once. Its shared memory segment is remembered for the teardown.
 */
export async function killNode(state: HaClusterState, node: HaNode): Promise<void> {
  const postmaster = postmasterOf(node.dataDir);
  if (postmaster?.shmid != null) node.shmids.push(postmaster.shmid);
  const patroni = node.patroniPid !== null && aliveWith(node.patroniPid, node.configFile) ? node.patroniPid : null;
  await killNodeProcesses(patroni, postmaster?.pid ?? null);
  node.patroniPid = null;
  saveState(state);
}

/** The WAL sender processes of a node's postmaster (a primary's connections to its standbys). */
export function walSenders(node: HaNode): number[] {
  const postmaster = postmasterOf(node.dataDir);
  return postmaster?.pid ? childrenNamed(postmaster.pid, 'walsender') : [];
}

export async function startHaCluster(options: HaOptions = {}): Promise<HaClusterState> {
  const o: Required<HaOptions> = {
    synchronous: options.synchronous ?? true,
    maximumLagOnFailover: options.maximumLagOnFailover ?? 1_048_576,
    nodes: options.nodes ?? 3,
    maxConnections: options.maxConnections ?? 200,
  };
  const missing = haToolsMissing();
  if (missing.length > 0)
    throw new Error(`missing for the HA cluster: ${missing.join(', ')} (apt-get install -y patroni etcd-server haproxy)`);
  const root = mkdtempSync('/tmp/purse-ha-');
  const scope = `purse-${root.slice(-6).toLowerCase()}`;
  const clientPort = await freeClusterPort();
  const peerPort = await freeClusterPort();
  const nodes: HaNode[] = [];
  for (let i = 0; i < o.nodes; i++) nodes.push(await writeNodeConfig(root, i, scope, clientPort, o));
  const haPort = await freeClusterPort();
  const haConfig = writeHaproxyConfig(root, haPort, nodes);
  chownTree(root);
  const state: HaClusterState = {
    root,
    scope,
    synchronous: o.synchronous,
    etcd: { pid: 0, clientPort, peerPort, logFile: join(root, 'etcd.log') },
    haproxy: { pid: 0, port: haPort, configFile: haConfig, logFile: join(root, 'haproxy.log') },
    nodes,
  };
  try {
    state.etcd.pid = spawnDetached('etcd', etcdArgs(root, clientPort, peerPort, scope), state.etcd.logFile, root);
    saveState(state);
    const etcdDeadline = Date.now() + 20_000;
    while ((await httpStatus(`http://${HOST}:${clientPort}/health`)) !== 200) {
      if (Date.now() > etcdDeadline || !alive(state.etcd.pid))
        throw new Error(`etcd did not start: ${readFileSync(state.etcd.logFile, 'utf8').slice(-1500)}`);
      await sleep(100);
    }
    state.haproxy.pid = spawnDetached('haproxy', ['-f', haConfig, '-db'], state.haproxy.logFile, root);
    saveState(state);
    // The first node bootstraps alone; the others clone it once it leads (no race for the initdb).
    startNode(state, nodes[0]!);
    const firstDeadline = Date.now() + 60_000;
    while ((await findPrimary(state)) === null) {
      if (Date.now() > firstDeadline) throw new Error(`the first node did not become primary\n${logsTail(state)}`);
      await sleep(200);
    }
    if (!alive(state.haproxy.pid)) throw new Error(`HAProxy exited: ${readFileSync(state.haproxy.logFile, 'utf8').slice(-1500)}`);
    for (const node of nodes.slice(1)) startNode(state, node);
    await waitHealthy(state, 90_000);
    return state;
  } catch (error) {
    await destroyHaCluster(state).catch(() => {});
    throw error;
  }
}

/**
 * Stops everything by pid (HAProxy, every node as a kill, etcd), removes the shared memory the
 * killed postmasters left, deletes the directory unless `keep`.
 */
export async function destroyHaCluster(state: HaClusterState, keep = false): Promise<void> {
  if (state.haproxy.pid > 0) await stopGroup(state.haproxy.pid, 5_000);
  for (const node of state.nodes) {
    const postmaster = postmasterOf(node.dataDir);
    if (postmaster?.shmid != null) node.shmids.push(postmaster.shmid);
    const patroni = node.patroniPid !== null && aliveWith(node.patroniPid, node.configFile) ? node.patroniPid : null;
    await killNodeProcesses(patroni, postmaster?.pid ?? null);
    node.patroniPid = null;
  }
  if (state.etcd.pid > 0) await stopGroup(state.etcd.pid, 5_000);
  removeOrphanSegments(state.nodes.flatMap((n) => n.shmids));
  if (!keep) rmSync(state.root, { recursive: true, force: true });
}
