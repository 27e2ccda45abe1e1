// Importing CIFAR-10 from the teaching page's Dataset panel, in headless Chromium with real
// IndexedDB: an archive in the real binary format picked with the file chooser is imported (with
// progress) and selected; a corrupt archive is refused with the file named and the stored dataset
// left as it was; after a reload the page trains from the stored records. The URL form imports
// from a local HTTP server, names the failing address and status, and refuses text that is no URL.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer';
import type { BrowserSession } from '../helpers/browser.ts';
import { flipByte, makeArchive, makeFiles } from '../helpers/cifar-fixture.ts';
import { openPage, openBrowserPage, read, statusText, waitForState } from './page-helpers.ts';

let session: BrowserSession;
let page: Page;
let dir: string;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ session, page, dir, close } = await openBrowserPage({ tempDir: 'webddp-import-' }));
});
afterAll(async () => close());

const panelState = (p: Page) =>
  p.$eval('.dataset-panel', (el) => ({
    state: (el as HTMLElement).dataset.importState,
    dataset: (el as HTMLElement).dataset.dataset,
    status: el.querySelector('.ds-status')?.textContent ?? '',
    alert: el.querySelector('.ds-alert')?.textContent ?? '',
  }));

async function pick(path: string): Promise<void> {
  const [chooser] = await Promise.all([page.waitForFileChooser(), page.click('.ds-drop button')]);
  await chooser.accept([path]);
}

/** Serves `archive` at /cifar-10-binary.tar.gz (with CORS, as a mirror must) and 404 elsewhere. */
async function serveArchive(archive: Uint8Array): Promise<{ base: string; server: Server }> {
  const server = createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.url !== '/cifar-10-binary.tar.gz') return void res.writeHead(404, 'Not Found').end();
    res.writeHead(200, { 'Content-Type': 'application/gzip', 'Content-Length': archive.length }).end(archive);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://localhost:${(server.address() as AddressInfo).port}`, server };
}

async function importUrl(text: string): Promise<void> {
  await page.$eval('.ds-url input', (el) => {
    el.value = '';
  });
  await page.type('.ds-url input', text);
  await page.click('.ds-url button');
}

async function importFinished(): Promise<void> {
  await page.waitForFunction(
    () => ['done', 'error'].includes(document.querySelector<HTMLElement>('.dataset-panel')?.dataset.importState ?? ''),
    { timeout: 120_000 },
  );
}

describe('CIFAR-10 import on the page', () => {
  it('imports a picked archive, refuses a corrupt one without losing the stored data, and trains on it after a reload', async () => {
    const archive = await makeArchive({ files: makeFiles(16, 24, 5) }); // 5 x 16 training, 24 test records
    const good = join(dir, 'cifar-10-binary.tar.gz');
    const bad = join(dir, 'broken.tar.gz');
    await writeFile(good, archive);
    await writeFile(bad, flipByte(archive, Math.floor(archive.length / 2)));

    await openPage(page, { workers: 2, batchSize: 4, trainLimit: 32, testLimit: 24, epochs: 1, autostart: 0 });
    await pick(good);
    await importFinished();
    let s = await panelState(page);
    expect(s.state, s.alert).toBe('done');
    expect(s.dataset).toBe('cifar10');
    expect(s.status).toMatch(/Imported 80 training and 24 test records from cifar-10-binary\.tar\.gz/);

    await pick(bad);
    await importFinished();
    s = await panelState(page);
    expect(s.state).toBe('error');
    expect(s.alert).toMatch(/broken\.tar\.gz/);
    expect(s.alert).toMatch(/previously stored dataset is unchanged/);

    await openPage(page, { workers: 2, batchSize: 4, trainLimit: 32, testLimit: 24, epochs: 1, autostart: 0 });
    await page.waitForFunction(
      () => document.querySelector<HTMLInputElement>('.dataset-panel input[value="cifar10"]')?.disabled === false,
    );
    await page.click('.dataset-panel input[value="cifar10"]');
    expect((await panelState(page)).dataset).toBe('cifar10');
    await page.click('#run-start');
    expect(await waitForState(page, ['done', 'failed']), await statusText(page)).toBe('done');
    const [epoch] = await read(page, 'epochs');
    expect(epoch?.testAccuracy).toBeGreaterThanOrEqual(0);
    expect((await read(page, 'log')).some((l) => /Epoch 0 done .* \(24 images\)/.test(l))).toBe(true);
    expect(await read(page, 'losses')).toHaveLength(4);
    expect(session.errors).toEqual([]);
  });

  it('imports from a URL, names the address and status of one that fails, and refuses text that is no URL', async () => {
    const { base, server } = await serveArchive(await makeArchive({ files: makeFiles(8, 8, 5) }));
    try {
      await openPage(page, { autostart: 0 });
      await importUrl('cifar-10-binary.tar.gz');
      const field = () =>
        page.$eval('.ds-url', (f) => ({
          invalid: f.querySelector('input')?.getAttribute('aria-invalid') ?? null,
          error: f.querySelector('.ds-url-error')?.textContent ?? '',
          focused: document.activeElement === f.querySelector('input'),
        }));
      expect(await field()).toEqual({
        invalid: 'true',
        error: '"cifar-10-binary.tar.gz" is not a full URL; it must start with https:// or http://.',
        focused: true,
      });
      expect((await panelState(page)).state).toBe('idle');

      await importUrl(`${base}/missing.tar.gz`);
      expect((await field()).invalid).toBeNull();
      await importFinished();
      let s = await panelState(page);
      expect(s.state).toBe('error');
      expect(s.alert).toContain(`GET ${base}/missing.tar.gz failed: HTTP 404 Not Found`);
      expect(s.alert).toMatch(/previously stored dataset is unchanged/);

      await importUrl(`${base}/cifar-10-binary.tar.gz`);
      await importFinished();
      s = await panelState(page);
      expect(s.state, s.alert).toBe('done');
      expect(s.dataset).toBe('cifar10');
      expect(s.status).toMatch(/Imported 40 training and 8 test records from /);
      // The only errors Chromium reports are about the missing file (its 404, the aborted body).
      expect(session.errors.filter((e) => !e.includes(`${base}/missing.tar.gz`))).toEqual([]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
