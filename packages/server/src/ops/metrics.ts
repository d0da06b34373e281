import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics; one registry per app so tests can build several apps in one process. */
export function createMetrics(options: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'purse_http_requests_total',
    help: 'HTTP requests by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'purse_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const batches = new Histogram({
    name: 'purse_group_commit_batch_size',
    help: 'Money writes per group commit, by whether the batch fell back to running each alone.',
    labelNames: ['fell_back'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64, 128],
    registers: [registry],
  });
  const database = databaseMetrics(registry);
  return {
    registry,
    ...database,
    observeBatch(size: number, fellBack: boolean): void {
      batches.observe({ fell_back: String(fellBack) }, size);
    },
    observeRequest(method: string, route: string, status: number, seconds: number): void {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * The database as the requests saw it during a failover (docs/failover.md): 503s by cause, and the
 * windows without a writable primary, each from the first request refused for want of one to
 * the next write or readiness check that succeeded.
 */
function databaseMetrics(registry: Registry, now: () => number = Date.now) {
  const unavailable = new Counter({
    name: 'purse_unavailable_total',
    help: 'Requests answered 503 because the database could not serve them, by cause (connection_lost, read_only, commit_unknown…).',
    labelNames: ['cause'] as const,
    registers: [registry],
  });
  const conflicts = new Counter({
    name: 'purse_group_commit_conflicts_total',
    help: 'Group-commit batches or statements run again after a deadlock (40P01) or serialization failure (40001).',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const windows = new Histogram({
    name: 'purse_database_unavailable_window_seconds',
    help: 'Windows without a writable primary seen by this process (failovers, outages), from the first refused request to the next success.',
    buckets: [1, 2, 5, 10, 15, 20, 30, 45, 60, 120, 300],
    registers: [registry],
  });
  const available = new Gauge({
    name: 'purse_database_available',
    help: '1 while the last database operation of this process succeeded, 0 inside a window without a writable primary.',
    registers: [registry],
  });
  available.set(1);
  let since: number | undefined;
  return {
    observeUnavailable(cause: string): void {
      unavailable.inc({ cause });
      if (since !== undefined) return;
      since = now();
      available.set(0);
    },
    observeDatabaseAvailable(): void {
      if (since === undefined) return;
      windows.observe((now() - since) / 1000);
      since = undefined;
      available.set(1);
    },
    observeConflict(code: string): void {
      conflicts.inc({ code });
    },
  };
}
