// Helpers for the teaching-page tests: open the built page with settings in its address, wait on
// the page's own data (window.webddpPage), and save screenshots of its views to
// test-results/screenshots/ (the README's screenshot is one of them).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'puppeteer';
import { inject } from 'vitest';
import type { PageApi } from '../../src/ui/page-api.ts';
import { launchBrowser, type BrowserSession } from '../helpers/browser.ts';

export const SCREENSHOTS = 'test-results/screenshots';

/**
 * The page's `tuning` for its runs here: the 'registers' convolutions the GPU tier trains with
 * (vitest.config.ts). On SwiftShader a worker compiles them in a fraction of the time of the 'wide'
 * ones the adapter's tuning picks; every variant is checked against the CPU reference in
 * test/gpu/ops.test.ts and check.test.ts.
 */
export const QUICK_TUNING = JSON.stringify({
  convForward: 'registers',
  convInput: 'registers',
  convWeight: 'registers',
});

/**
 * Opens the teaching page with these query parameters and waits until it has built its views. Its
 * runs use QUICK_TUNING unless `adapterKernels` (the kernels the adapter's own tuning picks, as a user gets).
 */
export async function openPage(
  page: Page,
  params: Record<string, string | number | boolean>,
  opts: { adapterKernels?: boolean } = {},
): Promise<void> {
  const all = opts.adapterKernels ? params : { tuning: QUICK_TUNING, ...params };
  const q = new URLSearchParams(Object.entries(all).map(([k, v]) => [k, String(v)]));
  await page.setViewport({ width: 1440, height: 1000 });
  await page.goto(`${inject('baseUrl')}/?${q.toString()}`);
  await page.waitForFunction(() => window.webddpPage !== undefined, { timeout: 60_000 });
}

/** Calls a PageApi method in the page and returns its plain-data result. */
export function read<K extends keyof PageApi>(page: Page, key: K): Promise<ReturnType<PageApi[K]>> {
  return page.evaluate((k) => {
    const api = window.webddpPage;
    if (!api) throw new Error('window.webddpPage is missing');
    return (api[k] as () => unknown)();
  }, key) as Promise<ReturnType<PageApi[K]>>;
}

/** Waits until the main run's state is one of `states` (the run-buttons' data-state). */
export async function waitForState(page: Page, states: readonly string[], timeout = 540_000): Promise<string> {
  await page.waitForFunction(
    (s: string[]) => s.includes(document.querySelector<HTMLElement>('.run-buttons')?.dataset.state ?? ''),
    { timeout, polling: 250 },
    [...states],
  );
  return page.$eval('.run-buttons', (el) => (el as HTMLElement).dataset.state ?? '');
}

/** Text of the run's status line (it carries the error of a failed run). */
export function statusText(page: Page): Promise<string> {
  return page.$eval('.run-buttons .status', (el) => el.textContent);
}

/** Saves a screenshot of one section of the page (by element id) or of the whole page. */
export async function screenshot(page: Page, name: string, selector?: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  if (selector) {
    const el = await page.$(selector);
    if (!el) throw new Error(`no element ${selector} to screenshot`);
    await el.scrollIntoView();
    await el.screenshot({ path });
  } else await page.screenshot({ path, fullPage: false });
  return path;
}

/** Mean of the first and of the last k values. */
export function headTailMeans(xs: readonly number[], k: number): { head: number; tail: number } {
  const mean = (a: readonly number[]) => a.reduce((s, x) => s + x, 0) / a.length;
  return { head: mean(xs.slice(0, k)), tail: mean(xs.slice(-k)) };
}

/** Runs the compare view on two modes (the page must be open) and returns its results. */
export async function runCompare(
  page: Page,
  a: string,
  b: string,
  steps: number,
): Promise<ReturnType<PageApi['compare']>> {
  await page.select('#cmp-a', a);
  await page.select('#cmp-b', b);
  await page.$eval(
    '#cmp-steps',
    (el, n) => {
      (el as HTMLInputElement).value = String(n);
    },
    steps,
  );
  await page.click('#cmp-run');
  await page.waitForFunction(
    () => ['done', 'error'].includes(document.querySelector<HTMLElement>('.compare')?.dataset.state ?? ''),
    { timeout: 540_000, polling: 500 },
  );
  return read(page, 'compare');
}

/**
 * A test file's browser: Chromium launched, one page opened (at `url`, waiting until the page has
 * set `window[ready]`, where given); with `tempDir`, a temporary folder named with that prefix,
 * which receives the page's downloads where `downloads`; with `profileDir`, the browser's profile
 * (user-data-dir) there instead of in a temporary folder. `close` ends the browser and deletes `dir`.
 */
export async function openBrowserPage(
  opts: { url?: string; ready?: string; tempDir?: string; downloads?: boolean; profileDir?: string } = {},
): Promise<{ session: BrowserSession; page: Page; dir: string; close: () => Promise<void> }> {
  const session = await launchBrowser([], opts.profileDir);
  const page = await session.newPage();
  const dir = opts.tempDir === undefined ? '' : await mkdtemp(join(tmpdir(), opts.tempDir));
  if (dir && opts.downloads === true) {
    const cdp = await page.createCDPSession();
    await cdp.send('Page.setDownloadBehavior', { behavior: 'allow', downloadPath: dir });
  }
  if (opts.url !== undefined) await page.goto(opts.url);
  if (opts.ready !== undefined)
    await page.waitForFunction((k) => (window as unknown as Record<string, unknown>)[k] !== undefined, {}, opts.ready);
  return {
    session,
    page,
    dir,
    close: async () => {
      await session.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
