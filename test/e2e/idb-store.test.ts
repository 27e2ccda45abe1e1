// The IndexedDB dataset store in real Chromium: import an archive the test builds (passed into the
// page as bytes), reload the page and read it back byte for byte, load a shard in a module worker,
// and check that failed imports (a corrupt or truncated second half) leave the first dataset
// intact; generate the synthetic dataset in the page (same bytes as in Node). No console or page
// errors allowed. (An import into full storage: storage-full.test.ts.)
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'puppeteer';
import { RECORD_BYTES } from '../../src/data/cifar.ts';
import { generateSynthetic } from '../../src/data/synthetic.ts';
import type { BrowserSession } from '../helpers/browser.ts';
import { openBrowserPage } from './page-helpers.ts';
import { concatFiles, makeArchive, makeFiles, TRAIN_NAMES } from '../helpers/cifar-fixture.ts';
import type { DataHarness } from './harness/data.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

let session: BrowserSession;
let page: Page;
const url = `${inject('baseUrl')}/test/e2e/harness/data.html`;

/** The page's harness (window.webddpData), once the harness module has run. */
async function ready(): Promise<void> {
  await page.waitForFunction(() => window.webddpData !== undefined);
}

beforeAll(async () => ({ session, page } = await openBrowserPage({ url, ready: 'webddpData' })));
afterAll(async () => session.close());

describe('IndexedDB dataset store in Chromium', () => {
  const filesA = makeFiles(40, 20, 11);
  const filesB = makeFiles(40, 20, 12);

  it('imports an archive, survives a reload, reads back byte for byte, and serves a shard to a worker', async () => {
    const archive = await makeArchive({ files: filesA });
    const r = await page.evaluate(
      (a) => (window.webddpData as DataHarness).importArchive(a, { recordsPerChunk: 16 }),
      b64(archive),
    );
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.manifest.splits.train.records).toBe(200);
    expect(r.value.manifest.splits.test.records).toBe(20);
    expect(r.value.manifest.splits.train.chunks).toHaveLength(15); // 40 = 16 + 16 + 8 per file
    expect(r.value.phases).toEqual(['reading', 'committing', 'done']);
    expect(r.value.ignored).toEqual(['cifar-10-batches-bin/readme.html']);
    expect([true, false]).toContain(r.value.persisted); // navigator.storage.persist() answered

    await page.reload();
    await ready();
    const back = await page.evaluate(() => (window.webddpData as DataHarness).readBack('cifar10'));
    if (!back.ok) throw new Error(back.error.message);
    expect(back.value.manifest).toEqual(r.value.manifest);
    expect(back.value.trainSha).toBe(sha(concatFiles(filesA, TRAIN_NAMES)));
    expect(back.value.testSha).toBe(sha(filesA.get('test_batch.bin') ?? new Uint8Array()));

    const indices = [199, 0, 57, 57, 120];
    const shard = await page.evaluate((i) => (window.webddpData as DataHarness).shardInWorker('cifar10', i), indices);
    if (!shard.ok) throw new Error(shard.error.message);
    const train = concatFiles(filesA, TRAIN_NAMES);
    expect(shard.value.labels).toEqual(indices.map((i) => train[i * RECORD_BYTES]));
    expect(shard.value.imagesSha).toBe(
      sha(Buffer.concat(indices.map((i) => train.subarray(i * RECORD_BYTES + 1, (i + 1) * RECORD_BYTES)))),
    );

    const again = await page.evaluate(
      (a) => (window.webddpData as DataHarness).importArchive(a, { recordsPerChunk: 16 }),
      b64(archive),
    );
    expect(again.ok && again.value.unchanged && again.value.chunksWritten === 0).toBe(true);
  });

  it('an import that fails halfway (corrupt or truncated second half) leaves the first dataset intact', async () => {
    const before = await page.evaluate(() => (window.webddpData as DataHarness).readBack('cifar10'));
    const chunksBefore = await page.evaluate(() => (window.webddpData as DataHarness).listChunks());
    const archiveB = await makeArchive({ files: filesB });
    const corrupt = archiveB.slice();
    corrupt.fill(0x55, corrupt.byteLength >> 1, (corrupt.byteLength >> 1) + 64);
    const bad = await page.evaluate(
      (a) => (window.webddpData as DataHarness).importArchive(a, { recordsPerChunk: 16 }),
      b64(corrupt),
    );
    expect(bad.ok ? 'imported' : bad.error.name).toBe('CorruptGzipError');
    const cut = await page.evaluate(
      (a) => (window.webddpData as DataHarness).importArchive(a, { recordsPerChunk: 16 }),
      b64(archiveB.subarray(0, archiveB.byteLength >> 1)),
    );
    expect(cut.ok ? 'imported' : cut.error.name).toBe('TruncatedGzipError');

    await page.reload();
    await ready();
    const after = await page.evaluate(() => (window.webddpData as DataHarness).readBack('cifar10'));
    expect(after).toEqual(before);
    expect(await page.evaluate(() => (window.webddpData as DataHarness).listChunks())).toEqual(chunksBefore);
  });

  it('generates the synthetic dataset in the page with the same bytes as in Node', async () => {
    const r = await page.evaluate(() =>
      (window.webddpData as DataHarness).importSynthetic({ seed: 5, train: 300, test: 50 }),
    );
    expect(r.ok && r.value.manifest.name).toBe('synthetic');
    const back = await page.evaluate(() => (window.webddpData as DataHarness).readBack('synthetic'));
    const want = generateSynthetic({ seed: 5, train: 300, test: 50 });
    expect(back.ok && [back.value.trainSha, back.value.testSha]).toEqual([sha(want.train), sha(want.test)]);
    expect((await page.evaluate(() => (window.webddpData as DataHarness).readBack('cifar10'))).ok).toBe(true); // datasets coexist
  });

  it('logged no console errors, page errors or failed requests', () => {
    expect(session.errors).toEqual([]);
  });
});
