// Two tabs of the page on one IndexedDB checkpoint store, in real Chromium: while one tab's run
// holds the store (Web Locks), a run in another tab is refused with a message saying so; once the
// first run ends, or its tab is closed, the other tab's run may take it.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'puppeteer';
import { launchBrowser, type BrowserSession } from '../helpers/browser.ts';
import type { DataHarness } from './harness/data.ts';

let session: BrowserSession;
const url = `${inject('baseUrl')}/test/e2e/harness/data.html`;

async function tab(): Promise<Page> {
  const page = await session.newPage();
  await page.goto(url);
  await page.waitForFunction(() => window.webddpData !== undefined);
  return page;
}
const claim = (p: Page) => p.evaluate(() => (window.webddpData as DataHarness).claimCheckpoints());

beforeAll(async () => {
  session = await launchBrowser();
});
afterAll(async () => session.close());

describe('one run at a time writes checkpoints', () => {
  it("a second tab's run is refused while the first holds the store; it may run once the first ends or closes", async () => {
    const [a, b] = [await tab(), await tab()];
    expect((await claim(a)).ok).toBe(true);
    const refused = await claim(b);
    expect(refused.ok ? 'claimed' : refused.error.name).toBe('CheckpointStoreError');
    if (!refused.ok) expect(refused.error.message).toMatch(/another tab of this page is running with checkpoints/);
    await a.evaluate(() => (window.webddpData as DataHarness).releaseCheckpoints());
    expect((await claim(b)).ok).toBe(true);
    await b.close(); // a closed tab's claim goes with it (the browser lets go of its locks soon after)
    await expect.poll(async () => (await claim(a)).ok, { timeout: 10_000 }).toBe(true);
  });
});
