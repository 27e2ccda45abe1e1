// The timeline view in headless Chromium: a short DDP run on 2 workers draws every rank's measured
// spans (GPU work and communication), prints the exposed communication, and offers the trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer';
import type { BrowserSession } from '../helpers/browser.ts';
import { openBrowserPage, openPage, screenshot, statusText, waitForState } from './page-helpers.ts';

let session: BrowserSession;
let page: Page;
beforeAll(async () => ({ session, page } = await openBrowserPage()));
afterAll(async () => session.close());

describe('the timeline view', () => {
  it('draws both ranks’ GPU and communication spans of a DDP run and enables the trace download', async () => {
    await openPage(page, { workers: 2, batchSize: 2, trainLimit: 12, testLimit: 4, epochs: 1 });
    expect(await waitForState(page, ['done', 'failed']), await statusText(page)).toBe('done');
    await page.waitForFunction(() => Number(document.querySelector<HTMLElement>('.timeline')?.dataset.spans) > 0);
    const data = await page.$eval('.timeline', (el) => ({ ...(el as HTMLElement).dataset }));
    expect(data.ranks).toBe('2');
    expect(Number(data.compute)).toBeGreaterThan(10);
    expect(Number(data.comm)).toBeGreaterThan(0);
    expect(await page.$eval('.timeline-summary', (el) => el.textContent)).toMatch(/rank 1: [\d.]+ ms communicating/);
    expect(await page.$eval('.timeline-download', (el) => (el as HTMLButtonElement).disabled)).toBe(false);
    await screenshot(page, 'view-timeline', '#timeline');
    expect(session.errors).toEqual([]);
  });
});
