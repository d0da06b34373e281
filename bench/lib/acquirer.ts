// The card-acquirer scenario's parts: the fake acquirer started as a child process
// (bench/acquirer-fake.ts) and the check that the payments it took all succeeded.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Spawned, startChild } from './processes.ts';

export interface AcquirerFake {
  child: Spawned;
  /** PURSE_CARD_ACQUIRER_BASE_URL, _SECRET_KEY and _WEBHOOK_SECRET: for Purse's environment only, never printed. */
  env: Record<string, string>;
}

/** Starts the fake in its own process and waits (at most 30 s) for the environment it writes. */
export async function startAcquirerFake(options: { benchDir: string; cwd: string; logFile: string }): Promise<AcquirerFake> {
  const dir = mkdtempSync(join(tmpdir(), 'purse-bench-acquirer-'));
  const envFile = join(dir, 'env.json');
  try {
    const child = startChild('acquirer-fake', process.execPath, ['--import', 'tsx', join(options.benchDir, 'acquirer-fake.ts')], {
      cwd: options.cwd,
      env: { ...process.env, BENCH_ACQUIRER_ENV_FILE: envFile },
      logFile: options.logFile,
    });
    let exitCode: number | string | null = null;
    child.exited.then((code) => (exitCode = code));
    const deadline = Date.now() + 30_000;
    while (!existsSync(envFile)) {
      if (exitCode !== null) throw new Error(`acquirer fake exited (${exitCode}) before it was ready; see bench/results/logs/`);
      if (Date.now() > deadline) throw new Error('acquirer fake not ready after 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    return { child, env: JSON.parse(readFileSync(envFile, 'utf8')) as Record<string, string> };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What the scenario's answers and a sample of its payments show: every answer 201, and the
 * merchant's 100 newest payments (read back through the API) succeeded card payments.
 */
export async function acquirerCheck(base: string, token: string, statusCodes: Record<string, number>): Promise<string> {
  const others = Object.entries(statusCodes).filter(([code]) => code !== '201');
  const answers = others.length === 0 ? 'every answer 201' : `NOT every answer 201: ${others.map(([c, n]) => `${c}×${n}`).join(' ')}`;
  const response = await fetch(`${base}/v1/payments?limit=100`, {
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  });
  if (!response.ok) return `${answers}; sample not read (HTTP ${response.status})`;
  const page = (await response.json()) as { data: { status: string; livemode: boolean; payment_method?: { type?: string } }[] };
  const bad = page.data.filter((p) => p.status !== 'succeeded' || !p.livemode || p.payment_method?.type !== 'card');
  const sample =
    bad.length === 0
      ? `the ${page.data.length} newest payments read back all succeeded live card payments`
      : `${bad.length} of the ${page.data.length} newest payments NOT succeeded live card payments (${[...new Set(bad.map((p) => p.status))].join(', ')})`;
  return `${answers}; ${sample}`;
}
