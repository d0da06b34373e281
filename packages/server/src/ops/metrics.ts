import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

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
  return {
    registry,
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
