// Distributed training in headless Chromium: 4 module workers, each with its own WebGPU device and
// shared-memory links (the page is cross-origin isolated), train DDP and DataParallel from the dataset in IndexedDB; DataParallel piles memory on worker 0,
// DDP keeps the workers even; replicas stay identical. No console or page errors.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'puppeteer';
import type { BrowserSession } from '../helpers/browser.ts';
import { openBrowserPage, QUICK_TUNING } from './page-helpers.ts';
import type { DistHarness, DistRun } from './harness/dist.ts';

let session: BrowserSession;
let page: Page;
beforeAll(async () => {
  ({ session, page } = await openBrowserPage({
    url: `${inject('baseUrl')}/test/e2e/harness/dist.html`,
    ready: 'webddpDist',
  }));
});
afterAll(async () => session.close());

const run = (config: Record<string, unknown>): Promise<DistRun> =>
  page.evaluate((c, t) => (window.webddpDist as DistHarness).run(c, t), config, QUICK_TUNING);
const base = {
  workers: 4,
  batchSize: 4,
  epochs: 1,
  trainLimit: 32,
  testLimit: 16,
  checkEvery: 1,
  optimizer: 'adam',
  lr: 0.001,
};

describe('4 workers in Chromium', () => {
  it('DDP: every worker has its own device, replicas stay identical, memory is even', async () => {
    const r = await run({ ...base, mode: 'ddp' });
    expect(r.adapters).toHaveLength(4);
    expect(r.losses.length).toBe(2);
    expect(r.losses.every(Number.isFinite)).toBe(true);
    expect(r.checks.length).toBeGreaterThan(0);
    expect(r.checks.every(Boolean)).toBe(true);
    expect(new Set(r.peaks).size).toBe(1);
    // the harness asks for shared-memory rings; the page is cross-origin isolated, so the Web Workers get them
    expect(r.crossOriginIsolated).toBe(true);
    expect(r.transports).toEqual(['shared', 'shared', 'shared', 'shared']);
    expect(session.errors).toEqual([]);
  });

  it('DataParallel: worker 0 holds more memory than every other worker (optimizer state, gathered outputs)', async () => {
    const r = await run({ ...base, mode: 'dp' });
    const [p0 = 0, ...rest] = r.peaks;
    expect(p0).toBeGreaterThan(Math.max(...rest));
    expect(r.byCategory[0]?.optimizer ?? 0).toBeGreaterThan(0);
    expect(r.byCategory.slice(1).every((c) => (c.optimizer ?? 0) === 0)).toBe(true);
    expect(session.errors).toEqual([]);
  });
});
