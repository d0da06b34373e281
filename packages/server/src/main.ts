import cluster from 'node:cluster';
import { createApp } from './app.ts';
import { type Config, loadConfig } from './config.ts';
import { buildDeps, type Deps } from './deps.ts';
import { registerDrain } from './http/drain.ts';
import { bootstrapSandboxMerchant } from './ops/bootstrap.ts';
import { runPrimary, SHUTDOWN_DEADLINE_MS } from './ops/cluster.ts';
import { acquireDataDirLock, DataDirBusyError } from './ops/data-dir-lock.ts';
import { ConfigError } from './shared/env.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`purse: invalid configuration: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  if (config.processes > 1 && cluster.isPrimary) return runPrimary(config);

  let lock = null;
  try {
    lock = config.databaseUrl ? null : acquireDataDirLock(config.dataDir);
  } catch (error) {
    if (!(error instanceof DataDirBusyError)) throw error;
    process.stderr.write(`purse: ${error.message}\n`);
    process.exit(1);
  }
  const deps = await buildDeps(config);
  const app = await createApp(deps);
  const drain = registerDrain(app);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const deadline = setTimeout(() => {
      app.log.error('shutdown deadline passed; exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    try {
      // New requests get 503 and idle connections close now; app.close() stops listening and
      // resolves once every request already received has been answered.
      drain.begin();
      await app.close();
      await deps.close();
      lock?.release();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES') throw error;
    process.stderr.write(
      code === 'EADDRINUSE'
        ? `purse: port ${config.port} on ${config.host} is already in use (another Purse?). Stop it, or start on another port: PORT=${config.port + 1} npm start\n`
        : `purse: not allowed to listen on port ${config.port} of ${config.host}. Use a port above 1023: PORT=8080 npm start\n`,
    );
    await deps.close();
    lock?.release();
    process.exit(1);
  }
  startPollers(deps, config);
  const baseUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${(app.server.address() as { port: number }).port}`;
  if (!config.databaseUrl && config.bootstrapMerchant) await bootstrapSandboxMerchant(deps.services.merchants, baseUrl);
  app.log.info({ url: baseUrl, database: deps.db.kind }, 'Purse is listening');
}

/**
 * The background pollers: the workers when PURSE_WORKER is on, and the statistics worker in every
 * process, worker or not (an ANALYZE another process is running is skipped).
 */
function startPollers(deps: Deps, config: Config): void {
  const workers = config.workerEnabled ? [deps.worker, deps.outflowWorker, deps.deliveryWorker, deps.purgeWorker, deps.checkoutWorker] : [];
  for (const each of config.analyzeIntervalMs > 0 ? [...workers, deps.statisticsWorker] : workers) each.start();
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`purse: invalid configuration: ${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`purse: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
