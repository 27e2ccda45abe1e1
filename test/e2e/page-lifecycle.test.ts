// A run's life on the teaching page, in headless Chromium with real workers, WebGPU and IndexedDB:
// a run checkpoints into IndexedDB, is stopped after its first step, and "Resume from the last
// checkpoint" continues it to the end with exactly the parameters (SHA-256 of rank 0's float32
// bytes) of an uninterrupted run of the same settings; the stored checkpoint downloads as the three
// files `webddp train --resume-from` reads and exports as the torchrun project; with Max restarts 1, a worker that throws is recovered
// from the last checkpoint and the run again ends with those parameters; a checkpoint corrupted in IndexedDB is refused on resume,
// naming the file and the checksum, and no worker starts; so is one whose recorded dataset is not the selected one.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unpackTar } from 'modern-tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer';
import { readTrainerJson } from '../../src/checkpoint/checkpoint.ts';
import type { BrowserSession } from '../helpers/browser.ts';
import { openPage, openBrowserPage, read, statusText, waitForState } from './page-helpers.ts';

let session: BrowserSession;
let page: Page;
let dir: string;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ session, page, dir, close } = await openBrowserPage({ tempDir: 'webddp-life-', downloads: true }));
});
afterAll(async () => close());

// 2 workers x batch 4 over 32 records: 4 steps an epoch, 8 in all; Adam and augmentation, so the
// optimizer state and the augmentation stream must both be restored for the parameters to agree.
const SETTINGS = {
  workers: 2,
  batchSize: 4,
  trainLimit: 32,
  testLimit: 8,
  epochs: 2,
  optimizer: 'adam',
  lr: 0.002,
  augment: 1,
  checkpointEvery: 3,
  autostart: 0,
};

async function run(): Promise<void> {
  await page.click('#run-start');
  expect(await waitForState(page, ['done', 'failed']), await statusText(page)).toBe('done');
}

/** Flips one byte of the newest checkpoint's model.safetensors in IndexedDB, as a bad disk would. */
function corruptNewest(p: Page): Promise<void> {
  return p.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('webddp-checkpoints');
        open.onerror = () => reject(new Error(String(open.error)));
        open.onsuccess = () => {
          const tx = open.result.transaction('checkpoints', 'readwrite');
          const os = tx.objectStore('checkpoints');
          const ptr = os.get('current');
          ptr.onsuccess = () => {
            const id = (ptr.result as { entries: { id: string }[] }).entries.at(-1)?.id ?? '';
            const key = `file/${id}/model.safetensors`;
            const file = os.get(key);
            file.onsuccess = () => {
              const bytes = (file.result as Uint8Array).slice();
              const at = bytes.length - 100;
              bytes[at] = (bytes[at] ?? 0) ^ 0x40;
              os.put(bytes, key);
            };
          };
          tx.oncomplete = () => {
            open.result.close();
            resolve();
          };
          tx.onerror = () => reject(new Error(String(tx.error)));
        };
      }),
  );
}

describe('checkpoints, stop and resume on the page', () => {
  it('a stopped run resumed from its IndexedDB checkpoint ends with the parameters of an uninterrupted run', async () => {
    await openPage(page, SETTINGS);
    await run();
    const uninterrupted = await read(page, 'params');
    expect(uninterrupted).toMatch(/^[0-9a-f]{64}$/);
    expect((await read(page, 'log')).filter((l) => l.startsWith('checkpoint: rank 0 saved'))).toHaveLength(4); // steps 3 and 6, two epoch ends

    await page.click('#run-start');
    await page.waitForFunction(() => (window.webddpPage?.losses().length ?? 0) >= 1, { polling: 50, timeout: 300_000 });
    await page.click('#run-stop');
    expect(await waitForState(page, ['stopped', 'done', 'failed']), await statusText(page)).toBe('stopped');
    const saved = await read(page, 'checkpoint');
    expect(saved?.globalStep).toBeGreaterThan(0);
    expect(saved?.globalStep).toBeLessThan(8); // stopped before the end: the resume has work to do
    expect(await read(page, 'params')).not.toBe(uninterrupted);

    await page.click('#life-resume');
    expect(await waitForState(page, ['done', 'failed']), await statusText(page)).toBe('done');
    expect(await read(page, 'params')).toBe(uninterrupted);
    expect((await read(page, 'log')).some((l) => l.startsWith(`resuming IndexedDB webddp-checkpoints/step-`))).toBe(
      true,
    );
    expect(await read(page, 'losses')).toHaveLength(8 - (saved?.globalStep ?? 0));

    // The download: the three files --resume-from reads, the trainer state at the run's end.
    await page.click('#life-download');
    await page.waitForFunction(() => /\(3 /.test(document.querySelector('#life-status')?.textContent ?? ''));
    for (let i = 0; i < 100 && (await readdir(dir)).filter((f) => !f.endsWith('.crdownload')).length < 3; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await readdir(dir)).sort()).toEqual(['model.safetensors', 'optimizer.safetensors', 'trainer.json']);
    const head = readTrainerJson(new Uint8Array(await readFile(join(dir, 'trainer.json'))), 'trainer.json');
    expect(head.position).toMatchObject({ epoch: 2, step: 0, globalStep: 8 });
    expect(head.dataset).toMatchObject({ kind: 'stored', name: 'synthetic', train: 10000, test: 2000 });
    expect(session.errors).toEqual([]);

    // Export for torchrun: one .tar with the project `webddp export-torchrun` writes, holding the
    // same checkpoint bytes the download gave.
    await page.click('#life-export');
    await page.waitForFunction(() => document.querySelector('#life-status')?.textContent?.includes('.tar'));
    const tarName = 'webddp-torchrun-step-8.tar';
    for (let i = 0; i < 100 && !(await readdir(dir)).includes(tarName); i++)
      await new Promise((r) => setTimeout(r, 100));
    const entries = await unpackTar(await readFile(join(dir, tarName)));
    const names = entries.filter((e) => e.header.type === 'file').map((e) => e.header.name.replace(/^[^/]+\//, ''));
    expect(names.sort()).toEqual(
      [
        'README.md',
        'checkpoint/model.safetensors',
        'checkpoint/optimizer.safetensors',
        'checkpoint/trainer.json',
        'train.py',
        'webddp_data.py',
        'webddp_safetensors.py',
        'webddp_schedules.py',
      ].sort(),
    );
    const entry = (n: string) => entries.find((e) => e.header.name.endsWith(`/${n}`))?.data;
    expect(entry('checkpoint/model.safetensors')).toEqual(
      new Uint8Array(await readFile(join(dir, 'model.safetensors'))),
    );
    expect(new TextDecoder().decode(entry('train.py'))).toMatch(/DATA = "synthetic"/);
    expect(new TextDecoder().decode(entry('README.md'))).toMatch(/the run finished all 2 epoch\(s\)/);
    expect(session.errors).toEqual([]);

    // Elastic recovery (in Chinese): rank 1 throws in step 5 (the second of epoch 1); with one restart
    // allowed, fresh workers continue from the epoch-end checkpoint of step 4, train step 4 again,
    // and the run ends as the uninterrupted one did.
    await openPage(page, { ...SETTINGS, fault: '1:5:throw', maxRestarts: 1, lang: 'zh' });
    await run();
    expect(await read(page, 'params')).toBe(uninterrupted);
    const log = (await read(page, 'log')).join('\n');
    expect(log).toMatch(/rank 1 失败（throw）：.*injected fault/);
    expect(log).toMatch(/第 1\/1 次重启（torchrun --max-restarts）：.*全局第 4 步的检查点/);
    expect(session.errors).toEqual([]);
  });

  it('refuses a checkpoint trained on another dataset than the selected one, naming both, and starts nothing', async () => {
    await openPage(page, { ...SETTINGS, lang: 'en' });
    await page.waitForFunction(() => document.querySelector<HTMLElement>('.run-life')?.dataset.state === 'stored');
    // the newest checkpoint's trainer.json as if its run had read other data (trainer.json has no checksum)
    const setContent = (content: string | null) =>
      page.evaluate(
        (c) =>
          new Promise<string>((resolve, reject) => {
            const open = indexedDB.open('webddp-checkpoints');
            open.onsuccess = () => {
              const tx = open.result.transaction('checkpoints', 'readwrite');
              const os = tx.objectStore('checkpoints');
              const ptr = os.get('current');
              let was = '';
              ptr.onsuccess = () => {
                const id = (ptr.result as { entries: { id: string }[] }).entries.at(-1)?.id ?? '';
                const key = `file/${id}/trainer.json`;
                const file = os.get(key);
                file.onsuccess = () => {
                  const j = JSON.parse(new TextDecoder().decode(file.result as Uint8Array)) as {
                    dataset: { content: string };
                  };
                  was = j.dataset.content;
                  if (c !== null)
                    os.put(
                      new TextEncoder().encode(JSON.stringify({ ...j, dataset: { ...j.dataset, content: c } })),
                      key,
                    );
                };
              };
              tx.oncomplete = () => {
                open.result.close();
                resolve(was);
              };
              tx.onerror = () => reject(new Error(String(tx.error)));
            };
          }),
        content,
      );
    const content = await setContent('e'.repeat(64));
    await page.click('#life-resume');
    expect(await waitForState(page, ['failed', 'done'])).toBe('failed');
    expect(await statusText(page)).toContain(
      "IndexedDB webddp-checkpoints/step-8 was trained on dataset 'synthetic' (10000 train, 2000 test records, " +
        "content eeeeeeeeeeeeeeee...); this run's data is dataset 'synthetic' (10000 train, 2000 test records, " +
        `content ${content.slice(0, 16)}...). An exact resume continues on the data the checkpoint was trained on: ` +
        'choose it in the Dataset panel',
    );
    expect(page.workers()).toHaveLength(0);
    await setContent(content);
    expect(session.errors).toEqual([]);
  });

  it('refuses a checkpoint corrupted in IndexedDB, naming the file and the checksum, and starts nothing', async () => {
    await openPage(page, { ...SETTINGS, lang: 'en' });
    await page.waitForFunction(() => document.querySelector<HTMLElement>('.run-life')?.dataset.state === 'stored');
    // Keep 2: the pointer names two checkpoints and only their files are left (older ones swept).
    const stored = await page.evaluate(
      () =>
        new Promise<string[]>((resolve) => {
          const open = indexedDB.open('webddp-checkpoints');
          open.onsuccess = () => {
            const req = open.result.transaction('checkpoints').objectStore('checkpoints').getAllKeys();
            req.onsuccess = () => {
              open.result.close();
              resolve(req.result.map(String));
            };
          };
        }),
    );
    expect(stored.filter((k) => k.startsWith('file/'))).toHaveLength(6);
    expect(stored.filter((k) => !k.startsWith('file/'))).toEqual(['current']);
    await corruptNewest(page);
    await page.click('#life-resume');
    expect(await waitForState(page, ['failed', 'done'])).toBe('failed');
    expect(await statusText(page)).toMatch(
      /IndexedDB webddp-checkpoints\/step-8\/model\.safetensors: SHA-256 [0-9a-f]{64} does not match .*\(corrupted\)/,
    );
    expect(await page.$eval('#life-status', (el) => el.textContent)).toMatch(/Cannot use the checkpoint/);
    expect(page.workers()).toHaveLength(0);
    expect(session.errors).toEqual([]);
  });
});
