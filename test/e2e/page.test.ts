// The teaching page as a new user meets it, in headless Chromium against `vite build` + `vite
// preview`: the default run starts by itself and the loss falls; DataParallel vs DDP at 4 workers
// in the compare view puts the largest peak on worker 0; pause, resume and stop; bad settings are
// refused at their control. Assertions read the page's own data (window.webddpPage); screenshots
// of the main views go to test-results/screenshots/.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'puppeteer';
import type { BrowserSession } from '../helpers/browser.ts';
import {
  headTailMeans,
  openBrowserPage,
  openPage,
  read,
  runCompare,
  screenshot,
  statusText,
  waitForState,
} from './page-helpers.ts';

let session: BrowserSession;
let page: Page;
beforeAll(async () => ({ session, page } = await openBrowserPage()));
afterAll(async () => session.close());

describe('the teaching page', () => {
  it('starts the default run by itself on the built-in dataset; the loss falls and every view fills in', async () => {
    // The default run (DDP, 4 workers), shrunk to fit a software GPU: 3 short epochs of 24 steps
    // (the last 8 losses about 1.4 below the first 8, test accuracy about 0.65 on SwiftShader), with
    // the kernels the adapter's tuning picks, as a user gets them.
    await openPage(
      page,
      {
        workers: 4,
        batchSize: 4,
        trainLimit: 384,
        testLimit: 128,
        epochs: 3,
        optimizer: 'adam',
        lr: 0.002,
      },
      { adapterKernels: true },
    );
    const state = await waitForState(page, ['done', 'failed']);
    expect(state, await statusText(page)).toBe('done');
    const losses = await read(page, 'losses');
    expect(losses).toHaveLength(3 * (384 / 16));
    expect(losses.every(Number.isFinite)).toBe(true);
    const { head, tail } = headTailMeans(losses, 8);
    expect(tail).toBeLessThan(head - 0.3);
    const epochs = await read(page, 'epochs');
    expect(epochs.map((e) => e.epoch)).toEqual([0, 1, 2]);
    expect(epochs.at(-1)?.testAccuracy ?? 0).toBeGreaterThan(0.2);
    const memory = await read(page, 'memory');
    expect(memory).toHaveLength(4);
    expect(memory.every((m) => m.peak > 0 && m.byCategory.parameters.allocated > 0)).toBe(true);
    const log = await read(page, 'log');
    expect(log.some((l) => /^Epoch 2 \| Batch 24\/24 \| Loss: \d\.\d{4}$/.test(l))).toBe(true);
    // The views drew what the run reported.
    expect(await page.$eval('.curves', (el) => (el as HTMLElement).dataset.steps)).toBe(String(losses.length));
    expect(await page.$$eval('#memory .mem-row', (rows) => rows.length)).toBe(4);
    expect(
      Number(await page.$eval('#ring [data-transfers]', (el) => (el as HTMLElement).dataset.transfers)),
    ).toBeGreaterThan(0);
    expect(await page.$eval('#shards [data-epoch]', (el) => (el as HTMLElement).dataset.epoch)).toBe('2');
    expect(await page.$$eval('#samples canvas', (c) => c.length)).toBeGreaterThan(0);
    await screenshot(page, 'training');
    for (const id of ['training', 'memory', 'ring', 'shards', 'samples', 'log'])
      await screenshot(page, `view-${id}`, `#${id}`);
    expect(session.errors).toEqual([]);
  });

  it('compare: DataParallel piles memory on worker 0, DDP keeps 4 workers even', async () => {
    await openPage(page, { workers: 4, batchSize: 4, autostart: 0, optimizer: 'adam' });
    const results = await runCompare(page, 'dp', 'ddp', 2);
    expect(results.map((r) => [r.mode, r.workers, r.steps, r.error])).toEqual([
      ['dp', 4, 2, undefined],
      ['ddp', 4, 2, undefined],
    ]);
    const [dp, ddp] = results;
    const [dp0 = 0, ...dpRest] = dp?.peaks ?? [];
    expect(dp0).toBeGreaterThan(Math.max(...dpRest));
    expect(dp?.memory[0]?.byCategory.optimizer.peak ?? 0).toBeGreaterThan(0);
    expect(dp?.memory.slice(1).every((m) => m.byCategory.optimizer.peak === 0)).toBe(true);
    expect(new Set(ddp?.peaks).size).toBe(1);
    // The drawn bars carry the same numbers.
    const drawn = await page.$$eval('.compare-col[data-mode="dp"] .mem-col', (rows) =>
      rows.map((r) => Number((r as HTMLElement).dataset.peak)),
    );
    expect(drawn).toEqual(dp?.peaks);
    await screenshot(page, 'view-compare', '#compare');
    expect(session.errors).toEqual([]);
  });

  it('compare: ZeRO-1 keeps 1/W of the optimizer state on each of 4 workers', async () => {
    await openPage(page, { workers: 4, batchSize: 4, autostart: 0, optimizer: 'adam' });
    const [zero, ddp] = await runCompare(page, 'zero1', 'ddp', 1);
    expect([zero?.error, ddp?.error]).toEqual([undefined, undefined]);
    const opt = (r: typeof zero) => r?.memory.map((m) => m.byCategory.optimizer.peak) ?? [];
    // Adam's two moments: 2 x 545,098 floats in DDP; a quarter of them (rounded up to whole chunks) in ZeRO-1.
    expect(opt(ddp)).toEqual([0, 1, 2, 3].map(() => 2 * 545_098 * 4));
    for (const o of opt(zero)) expect(Math.abs(o - (2 * 545_098 * 4) / 4)).toBeLessThan(64);
    expect(Math.max(...(zero?.peaks ?? []))).toBeLessThan(Math.min(...(ddp?.peaks ?? [])));
    expect(session.errors).toEqual([]);
  });

  it('compare: ZeRO-3 holds less of parameters, gradients and optimizer state than DDP on each worker', async () => {
    await openPage(page, { workers: 2, batchSize: 4, autostart: 0, optimizer: 'adam' });
    const [zero, ddp] = await runCompare(page, 'zero3', 'ddp', 1);
    expect([zero?.error, ddp?.error]).toEqual([undefined, undefined]);
    for (const cat of ['parameters', 'gradients', 'optimizer'] as const) {
      const peaks = (r: typeof zero) => r?.memory.map((m) => m.byCategory[cat].peak) ?? [];
      const full = 545_098 * 4 * (cat === 'optimizer' ? 2 : 1); // Adam: two moments
      expect(peaks(ddp), cat).toEqual([full, full]);
      // 1/W of the state plus at most one 256 KiB bucket or working buffer (cf. test/gpu/zero.test.ts).
      for (const p of peaks(zero)) expect(p, cat).toBeLessThan(full / 2 + 256 * 1024 + 64);
    }
    expect(await page.$$eval('.compare-col[data-mode="zero3"] .mem-col', (cols) => cols.length)).toBe(2);
    expect(session.errors).toEqual([]);
  });

  it('DataParallel on 4 workers: worker 0 carries the most memory, the ring view draws a star around it', async () => {
    await openPage(page, { mode: 'dp', workers: 4, batchSize: 4, trainLimit: 128, testLimit: 32, epochs: 1 });
    expect(await waitForState(page, ['done', 'failed']), await statusText(page)).toBe('done');
    const [w0, ...rest] = await read(page, 'memory');
    expect(w0?.peak ?? 0).toBeGreaterThan(Math.max(...rest.map((m) => m.peak)));
    expect(
      await page.$$eval('#memory .mem-row', (rows) => rows.map((r) => (r as HTMLElement).dataset.peak)),
    ).toHaveLength(4);
    expect(
      Number(await page.$eval('#ring [data-transfers]', (el) => (el as HTMLElement).dataset.transfers)),
    ).toBeGreaterThan(0);
    expect(await page.$eval('#ring', (el) => el.textContent)).toMatch(/DataParallel/);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'overview-dp');
    await screenshot(page, 'view-ring-dp', '#ring');
    expect(session.errors).toEqual([]);
  });

  it('pause holds the run, resume continues it, stop ends it', async () => {
    await openPage(page, { workers: 1, batchSize: 4, trainLimit: 4000, testLimit: 16, epochs: 1 });
    await page.waitForFunction(() => (window.webddpPage?.losses().length ?? 0) >= 2, {
      timeout: 300_000,
      polling: 200,
    });
    await page.click('#run-pause');
    await waitForState(page, ['paused']);
    // 'paused' is shown once the steps already queued (one more in the pipelined one-worker mode)
    // have finished and been reported: from then on no step runs.
    const held = (await read(page, 'losses')).length;
    await new Promise((r) => setTimeout(r, 1500));
    expect((await read(page, 'losses')).length).toBe(held);
    await page.click('#run-resume');
    await page.waitForFunction(
      (n: number) => (window.webddpPage?.losses().length ?? 0) > n + 1,
      { timeout: 300_000, polling: 200 },
      held,
    );
    await page.click('#run-stop');
    expect(await waitForState(page, ['stopped', 'failed'])).toBe('stopped');
    expect(await read(page, 'epochs')).toHaveLength(1);
    expect(await page.$eval('#run-start', (b) => (b as HTMLButtonElement).disabled)).toBe(false);
    expect(session.errors).toEqual([]);
  });

  it.each(['ddp', 'dp', 'zero2'])(
    '%s: a worker that fails mid-run stops the run with an error naming the rank; the page stays usable',
    async (mode) => {
      await openPage(page, {
        mode,
        workers: 2,
        batchSize: 4,
        trainLimit: 64,
        testLimit: 8,
        epochs: 1,
        fault: '1:2:throw',
      });
      expect(await page.$eval('#fault-note', (el) => el.textContent)).toMatch(
        /fault=1:2:throw\): rank 1 throws an error at its step 2/,
      );
      expect(await waitForState(page, ['done', 'failed'])).toBe('failed');
      expect(await statusText(page)).toMatch(
        /rank 1 failed during step 2 of epoch 0: Error: injected fault: rank 1 throws at step 2/,
      );
      expect(await read(page, 'losses')).toHaveLength(2);
      expect((await read(page, 'log')).at(-1)).toMatch(/^error: rank 1 failed/);
      expect(await page.$eval('#run-start', (b) => (b as HTMLButtonElement).disabled)).toBe(false);
      expect(session.errors).toEqual([]);
    },
  );

  it('refuses a bad value at its control and never starts a worker with it', async () => {
    await openPage(page, { workers: 9, autostart: 1 });
    expect(await page.$eval('#cfg-workers', (el) => el.getAttribute('aria-invalid'))).toBe('true');
    expect(await page.$eval('#cfg-workers-error', (el) => el.textContent)).toMatch(
      /workers must be an integer from 1 to 8 \(got 9\)/,
    );
    expect(await page.$eval('#run-start', (b) => (b as HTMLButtonElement).disabled)).toBe(true);
    expect(page.workers()).toHaveLength(0);
    expect(await read(page, 'state')).toBe('idle');
    // Fixing the value clears the message and enables Start.
    await page.$eval('#cfg-workers', (el) => {
      (el as HTMLInputElement).value = '';
    });
    await page.type('#cfg-workers', '3');
    expect(await page.$eval('#cfg-workers', (el) => el.getAttribute('aria-invalid'))).toBe('false');
    expect(await page.$eval('#run-start', (b) => (b as HTMLButtonElement).disabled)).toBe(false);
    await page.select('#cfg-mode', 'balanced-dp');
    await page.$eval('#cfg-gpu0Bsz', (el) => {
      (el as HTMLInputElement).value = '1000';
      el.dispatchEvent(new Event('input'));
    });
    expect(await page.$eval('#cfg-gpu0Bsz-error', (el) => el.textContent)).toMatch(
      /gpu0Bsz \(1000\) cannot exceed the global batch/,
    );
    expect(await page.$eval('#run-start', (b) => (b as HTMLButtonElement).disabled)).toBe(true);
    expect(session.errors).toEqual([]);
  });

  it('explains what to enable when the browser has no WebGPU, instead of a blank page', async () => {
    const p = await session.browser.newPage();
    await p.evaluateOnNewDocument(() => {
      Reflect.deleteProperty(Navigator.prototype, 'gpu');
    });
    await openPageWithoutApi(p);
    const text = await p.$eval('#app', (el) => el.textContent);
    expect(text).toMatch(/WebGPU/);
    expect(text).toMatch(/enable-unsafe-webgpu/);
    await screenshot(p, 'no-webgpu');
    await p.close();
  });
});

async function openPageWithoutApi(p: Page): Promise<void> {
  await p.setViewport({ width: 1280, height: 900 });
  await p.goto(`${inject('baseUrl')}/`);
  await p.waitForFunction(() => !/Loading webddp/.test(document.querySelector('#app')?.textContent ?? ''), {
    timeout: 60_000,
  });
}
