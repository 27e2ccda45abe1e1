// Importing CIFAR-10 from the teaching page's Dataset panel, in headless Chromium with real
// IndexedDB: an archive in the real binary format picked with the file chooser is imported (with
// progress) and selected; a corrupt archive is refused with the file named and the stored dataset
// left as it was; after a reload the page trains from the stored records.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer';
import type { BrowserSession } from '../helpers/browser.ts';
import { flipByte, makeArchive, makeFiles } from '../helpers/cifar-fixture.ts';
import { openPage, pageWithTempDir, read, statusText, waitForState } from './page-helpers.ts';

let session: BrowserSession;
let page: Page;
let dir: string;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ session, page, dir, close } = await pageWithTempDir('webddp-import-'));
});
afterAll(async () => close());

const panelState = (p: Page) => p.$eval('.dataset-panel', (el) => ({
  state: (el as HTMLElement).dataset.importState, dataset: (el as HTMLElement).dataset.dataset,
  status: el.querySelector('.ds-status')?.textContent ?? '', alert: el.querySelector('.ds-alert')?.textContent ?? '',
}));

async function pick(path: string): Promise<void> {
  const [chooser] = await Promise.all([page.waitForFileChooser(), page.click('.ds-drop button')]);
  await chooser.accept([path]);
}

async function importFinished(): Promise<void> {
  await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector<HTMLElement>('.dataset-panel')?.dataset.importState ?? ''), { timeout: 120_000 });
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
    await page.waitForFunction(() => document.querySelector<HTMLInputElement>('.dataset-panel input[value="cifar10"]')?.disabled === false);
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
});
