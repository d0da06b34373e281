// The browser side of the dashboard tests: Debian's Chromium driven by playwright-core (Playwright's
// own browser downloads cannot work here), page errors collected, axe-core, first-load JS size.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { gzipSync } from 'node:zlib';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type ConsoleMessage, chromium, type Locator, type Page, type Request, type Response } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Chromium, or null when it is missing and the test should be skipped: a newcomer's `npm test`
 * must not fail for lack of a browser, but CI (CI set) must never skip silently.
 */
export async function launchChromium(t: TestContext): Promise<Browser | null> {
  if (!existsSync(CHROMIUM)) {
    const reason = `${CHROMIUM} is missing: install it with \`apt-get install -y chromium\` (.ci/run does) to run the browser tests`;
    if (process.env.CI) assert.fail(reason);
    t.skip(reason);
    return null;
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  t.after(() => browser.close());
  return browser;
}

/**
 * The page's first question on load, "is there a session?" (GET /dashboard/api/session), answers
 * 401 session_invalid when there is none: the expected answer of a signed-out load, which Chromium
 * logs as a failed load all the same.
 */
function isSignedOutCheck(message: ConsoleMessage): boolean {
  return /status of 401/.test(message.text()) && new URL(message.location().url || 'http://x/').pathname === '/dashboard/api/session';
}

/** Every console error and uncaught page error of the run, for one assertion at the end. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !isSignedOutCheck(message)) errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  return errors;
}

/**
 * The API's refusals that a step provoked on purpose (Chromium logs each one's failed load as a
 * console error): exactly these statuses since `from`, taken out of `errors`; anything else logged fails.
 */
export function expectRefusedLoads(errors: string[], from: number, statuses: number[]): void {
  const since = errors.splice(from);
  const refused = since.map((text) => /status of (\d{3})/.exec(text)?.[1]);
  assert.deepEqual(refused.map(Number).sort(), [...statuses].sort(), `the refused requests: ${since.join(' | ')}`);
}

/** The secondary sign-in (API client credentials, sandbox merchants): opens it, fills it, sends it. */
export async function signInWithClientCredentials(page: Page, clientId: string, clientSecret: string): Promise<void> {
  await openClientCredentials(page);
  await page.getByLabel('Client ID').fill(clientId);
  await page.getByLabel('Client secret').fill(clientSecret);
  await page.getByRole('button', { name: 'Sign in with client credentials' }).click();
}

/** Unfolds the sign-in page's secondary form (client credentials). */
export async function openClientCredentials(page: Page): Promise<void> {
  const more = page.locator('details').filter({ hasText: 'Sign in with API client credentials' });
  if (!(await more.evaluate((el) => (el as HTMLDetailsElement).open))) await more.locator('summary').click();
}

/** axe-core on the current page: no serious or critical violation. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `accessibility of ${what}`,
  );
}

/** The JavaScript a first load transfers, compressed as gzip would send it: the sum over the page's script files. */
export async function gzipBytesOfScripts(page: Page): Promise<number> {
  const urls = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map((entry) => entry.name)
      .filter((name) => name.endsWith('.js')),
  );
  assert.ok(urls.length > 0, 'the page loaded no script');
  let total = 0;
  for (const url of urls) total += gzipSync(Buffer.from(await (await fetch(url)).arrayBuffer())).length;
  return total;
}

/**
 * Runs `action` (a reload, a click), then waits for `locator` like `locator.waitFor()`; when it does
 * not come, fails with what the page showed instead (its address and text) and the answers of
 * /dashboard/ and /v1/ since the action, so a failure in CI can be read without a screenshot.
 */
export async function waitForOrExplain(
  page: Page,
  action: () => Promise<unknown>,
  locator: Locator,
  what: string,
  timeout = 30_000,
): Promise<void> {
  const answers: string[] = [];
  const record = (response: Response) => {
    const url = new URL(response.url());
    if (/^\/(dashboard|v1)\//.test(url.pathname) && !url.pathname.startsWith('/dashboard/assets/'))
      answers.push(`${response.request().method()} ${url.pathname} ${response.status()}`);
  };
  const failed = (request: Request) =>
    answers.push(`${request.method()} ${new URL(request.url()).pathname} failed: ${request.failure()?.errorText}`);
  page.on('response', record);
  page.on('requestfailed', failed);
  try {
    await action();
    await locator.waitFor({ timeout });
  } catch (error) {
    const text = await page.evaluate(() => document.body.textContent ?? '').catch((e: Error) => `(unreadable: ${e.message})`);
    assert.fail(
      `${what} did not show within ${timeout} ms at ${page.url()}; the page showed: ${JSON.stringify(text.slice(0, 600))}; dashboard answers meanwhile: ${answers.join(' | ') || 'none'} (${(error as Error).message.split('\n')[0]})`,
    );
  } finally {
    page.off('response', record);
    page.off('requestfailed', failed);
  }
}
