// The dashboard's layout checks: the page at a desktop and a phone width, its screenshots, and the
// rules a narrow screen must keep (no sideways scrolling of the document, a working menu button).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

export const WIDE = 1400;
export const NARROW = 390;
const HEIGHT = 900;

/** Follows an in-app path without a reload (a reload signs out: the token lives in the page's memory). */
export async function go(page: Page, path: string): Promise<void> {
  await page.evaluate((to) => {
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate'));
  }, `/dashboard/${path}`);
}

export async function setWidth(page: Page, width: number): Promise<void> {
  await page.setViewportSize({ width, height: HEIGHT });
}

/** The whole page, at the current width, as `<dir>/<name>-<width>.png`. */
export async function shoot(page: Page, dir: string, name: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}-${page.viewportSize()?.width}.png`), fullPage: true });
}

/** The document is no wider than the window: tables and long words scroll or wrap inside their boxes. */
export async function assertNoSideScroll(page: Page, what: string): Promise<void> {
  const { scrollWidth, innerWidth, widest } = await page.evaluate(() => {
    const inner = window.innerWidth;
    // What sticks out, to make a failure readable.
    const wide = [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((el) => el.getBoundingClientRect().right > inner + 1)
      .slice(0, 3)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} (${Math.round(el.getBoundingClientRect().right)} px)`);
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: inner, widest: wide };
  });
  assert.ok(
    scrollWidth <= innerWidth,
    `${what}: the document is ${scrollWidth} px wide in a ${innerWidth} px window; ${widest.join(', ')}`,
  );
}

/** Each label sits above its field, on one line, and the field spans the form. */
export async function assertStackedForm(page: Page, labels: string[]): Promise<void> {
  for (const text of labels) {
    const label = page.getByText(text, { exact: true });
    const field = page.getByLabel(text, { exact: true });
    const [l, f] = [await label.boundingBox(), await field.boundingBox()];
    assert.ok(l && f, `${text}: label and field are shown`);
    assert.ok(l.y + l.height <= f.y + 1, `${text}: the label is above its field`);
    const lineHeight = await label.evaluate((el) => Number.parseFloat(getComputedStyle(el).lineHeight));
    assert.ok(l.height < lineHeight * 1.5, `${text}: the label is on one line (${l.height} px high)`);
    const form = await field.evaluate((el) => (el as HTMLInputElement).form?.getBoundingClientRect().width ?? 0);
    assert.ok(f.width >= form - 1, `${text}: the field spans the form (${f.width} of ${form} px)`);
  }
}

/** Counts the page's requests in flight, to wait until a page has loaded all it asks for. */
export function trackRequests(page: Page): { quiet(): Promise<void> } {
  let inFlight = 0;
  let lastChange = Date.now();
  const change = (by: number) => {
    inFlight += by;
    lastChange = Date.now();
  };
  page.on('request', () => change(1));
  page.on('requestfinished', () => change(-1));
  page.on('requestfailed', () => change(-1));
  return {
    /** Nothing in flight, and nothing started or ended for 250 ms. */
    async quiet() {
      const deadline = Date.now() + 10_000;
      while (inFlight > 0 || Date.now() - lastChange < 250) {
        assert.ok(Date.now() < deadline, `the page still had ${inFlight} requests in flight after 10 s`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}
