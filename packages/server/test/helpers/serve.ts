// A Purse server process for the tests that need real processes with one part broken on purpose
// (test/negative-control.ts): src/main.ts's start, with the batch executor named by
// TEST_BATCH_EXECUTOR (unset: the real one). Only tests start it; production's start has no way
// to choose a broken part. Stops on SIGTERM, once its requests are answered.
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { BatchExecutor } from '../../src/db/group-commit.ts';
import { buildDeps } from '../../src/deps.ts';
import { arrivalOrderLocks } from '../negative-controls/batchers.ts';

const EXECUTORS: Record<string, BatchExecutor> = { 'arrival-order-locks': arrivalOrderLocks };

const name = process.env.TEST_BATCH_EXECUTOR;
const executeBatch = name === undefined ? undefined : EXECUTORS[name];
if (name !== undefined && !executeBatch) throw new Error(`TEST_BATCH_EXECUTOR: unknown executor ${name}`);
const config = loadConfig();
const deps = await buildDeps(config, executeBatch ? { executeBatch } : {});
const app = await createApp(deps);
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => deps.close())
    .then(() => process.exit(0));
});
await app.listen({ port: config.port, host: config.host });
if (config.workerEnabled) {
  deps.worker.start();
  deps.outflowWorker.start();
  deps.deliveryWorker.start();
  deps.purgeWorker.start();
}
