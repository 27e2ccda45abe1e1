// The teaching page's model checkpoint, in headless Chromium: a trained model downloads as a
// safetensors state_dict under PyTorch's names; loading it back starts the next run from the
// trained weights (its first losses are far below a fresh model's); a corrupt file and a file
// of the wrong width are refused with what is wrong, and no worker starts.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer';
import { parseSafetensors } from '../../src/checkpoint/safetensors.ts';
import type { BrowserSession } from '../helpers/browser.ts';
import { headTailMeans, openPage, openBrowserPage, read, statusText, waitForState } from './page-helpers.ts';

let session: BrowserSession;
let page: Page;
let dir: string;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ session, page, dir, close } = await openBrowserPage({ tempDir: 'webddp-ckpt-', downloads: true }));
});
afterAll(async () => close());

async function downloaded(): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const f = (await readdir(dir)).find((n) => n.endsWith('.safetensors'));
    if (f) return join(dir, f);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no .safetensors download appeared');
}

/** Picks a file with the checkpoint's file input, as a user does. */
async function choose(path: string): Promise<void> {
  const [chooser] = await Promise.all([page.waitForFileChooser(), page.click('#ckpt-file')]);
  await chooser.accept([path]);
}

const SHAPES: Record<string, number[]> = {
  'conv1.weight': [32, 3, 3, 3],
  'conv1.bias': [32],
  'conv2.weight': [64, 32, 3, 3],
  'conv2.bias': [64],
  'fc1.weight': [128, 4096],
  'fc1.bias': [128],
  'fc2.weight': [10, 128],
  'fc2.bias': [10],
};

describe('model checkpoint on the page', () => {
  it('downloads the trained model as a PyTorch state_dict and resumes from it', async () => {
    // 3 epochs of 16 steps: the loss is already well below a fresh model's (its first 8 steps'
    // mean about 0.9 below; the test asks 0.4), in half the steps of 512 records.
    await openPage(page, {
      workers: 2,
      batchSize: 8,
      trainLimit: 256,
      testLimit: 64,
      epochs: 3,
      optimizer: 'adam',
      lr: 0.002,
    });
    expect(await waitForState(page, ['done', 'failed']), await statusText(page)).toBe('done');
    const fresh = await read(page, 'losses');
    await page.click('#ckpt-download');
    const file = await downloaded();
    const st = parseSafetensors(new Uint8Array(await readFile(file)), file);
    expect(Object.fromEntries([...st.tensors].map(([k, t]) => [k, t.shape]))).toEqual(SHAPES);
    expect([...st.tensors.values()].every((t) => t.dtype === 'F32')).toBe(true);
    expect(JSON.parse(st.metadata.config ?? '{}')).toMatchObject({ mode: 'ddp', workers: 2, epochs: 3 });

    await choose(file);
    await page.waitForFunction(() => document.querySelector<HTMLElement>('.checkpoint')?.dataset.state === 'loaded');
    expect(await page.$eval('#ckpt-status', (el) => el.textContent)).toMatch(/545,098 parameters \(width 1\)/);
    await page.$eval('#cfg-epochs', (el) => {
      (el as HTMLInputElement).value = '1';
      el.dispatchEvent(new Event('input'));
    });
    await page.click('#run-start');
    expect(await waitForState(page, ['done', 'failed']), await statusText(page)).toBe('done');
    const resumed = await read(page, 'losses');
    // A trained model starts where the fresh one ended, not at ln(10) = 2.30.
    expect(headTailMeans(resumed, 8).head).toBeLessThan(headTailMeans(fresh, 8).head - 0.4);
    expect(session.errors).toEqual([]);
  });

  it('refuses a corrupt checkpoint and one of the wrong width, naming the file and the problem', async () => {
    await openPage(page, { workers: 1, batchSize: 4, trainLimit: 8, testLimit: 8, autostart: 0 });
    const bad = join(dir, 'truncated.safetensors');
    const good = await downloaded();
    const bytes = await readFile(good);
    await writeFile(bad, bytes.subarray(0, 5000));
    await choose(bad);
    await page.waitForFunction(() => document.querySelector<HTMLElement>('.checkpoint')?.dataset.state === 'error');
    expect(await page.$eval('#ckpt-status', (el) => el.textContent)).toMatch(/truncated\.safetensors/);

    await choose(good);
    await page.waitForFunction(() => document.querySelector<HTMLElement>('.checkpoint')?.dataset.state === 'loaded');
    await page.$eval('#cfg-width', (el) => {
      (el as HTMLInputElement).value = '2';
      el.dispatchEvent(new Event('input'));
    });
    await page.click('#run-start');
    expect(await waitForState(page, ['failed'])).toBe('failed');
    expect(await statusText(page)).toMatch(/checkpoint does not fit this run: .*conv1\.weight/);
    expect(page.workers()).toHaveLength(0);
    expect(session.errors).toEqual([]);
  });
});
