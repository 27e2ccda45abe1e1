// Full storage in real headless Chromium: the browser's profile lives on a 24 MiB tmpfs (Chromium
// sizes an origin's quota from that disk and refuses writes beyond it), and filler data in a
// database of its own takes what is left. Then a checkpoint saved through the page's checkpoint
// panel fails saying the storage is full, and the previous checkpoint still resumes with the same
// state; a dataset import that does not fit fails saying so, and the dataset stored before reads
// back unchanged. Once the filler is gone, the same checkpoint saves. Mounting needs root: without
// it the test is skipped, saying so.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { BrowserSession } from '../helpers/browser.ts';
import type { DataHarness } from './harness/data.ts';
import type { QuotaHarness } from './harness/quota.ts';
import { openBrowserPage } from './page-helpers.ts';

const DISK = '24m';

/** Why a small tmpfs cannot be mounted here ('' when it can): tried once, on a scratch folder. */
function cannotMount(): string {
  if (process.platform !== 'linux') return `mounting a small tmpfs needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'mounting a small tmpfs for the browser profile needs root';
  const probe = mkdtempSync(join(tmpdir(), 'webddp-tmpfs-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe], { stdio: 'pipe' });
    return '';
  } catch (e) {
    return `cannot mount a tmpfs: ${String((e as { stderr?: unknown }).stderr ?? e).trim()}`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
const skip = cannotMount();

let disk = '';
let session: BrowserSession;
let page: Page;
let close = async () => {};
const data = <T>(p: Page, f: (h: DataHarness) => Promise<T>) =>
  p.evaluate(`(${f.toString()})(window.webddpData)`) as Promise<T>;
const quota = <T>(p: Page, f: (h: QuotaHarness) => Promise<T>) =>
  p.evaluate(`(${f.toString()})(window.webddpQuota)`) as Promise<T>;

beforeAll(async () => {
  if (skip) return;
  disk = mkdtempSync(join(tmpdir(), 'webddp-small-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK}`, 'tmpfs', disk]);
  ({ session, page, close } = await openBrowserPage({
    url: `${inject('baseUrl')}/test/e2e/harness/quota.html`,
    ready: 'webddpQuota',
    profileDir: disk,
  }));
  await page.waitForFunction(() => window.webddpData !== undefined);
});

afterAll(async () => {
  if (!disk) return;
  await close();
  execFileSync('umount', [disk]);
  rmSync(disk, { recursive: true, force: true });
});

describe(`the page on a full disk (browser profile on a ${DISK} tmpfs)`, () => {
  it.skipIf(skip)(
    `a checkpoint or an import that does not fit fails saying the storage is full, and keeps what was stored${skip ? ` (skipped: ${skip})` : ''}`,
    async () => {
      const first = await quota(page, (q) => q.save(3));
      expect(first.ok ? first.value.where : first.error.message).toBe('IndexedDB webddp-checkpoints/step-3');
      const small = await data(page, (d) => d.importSynthetic({ seed: 1, train: 64, test: 16 }));
      expect(small.ok).toBe(true);
      const before = await data(page, (d) => d.readBack('synthetic'));
      const chunks = await data(page, (d) => d.listChunks());

      const filled = await quota(page, (q) => q.fill(64));
      expect(filled.refused).toBe('QuotaExceededError'); // the disk, not the cap of 64 MiB, stopped it

      // (a) the next checkpoint does not fit: a clear error, and the previous one resumes exactly
      const refused = await quota(page, (q) => q.save(6));
      expect(refused.ok ? 'saved' : refused.error.name).toBe('CheckpointStoreError');
      if (!refused.ok)
        expect(refused.error.message).toMatch(
          /storage quota is full: cannot store checkpoint IndexedDB webddp-checkpoints\/step-6 \(4\.\d MiB\).*the previous checkpoint \(step 3\) is unchanged/,
        );
      const resumed = await quota(page, (q) => q.resume());
      expect(resumed).toEqual({
        ok: true,
        value: {
          where: 'IndexedDB webddp-checkpoints/step-3',
          globalStep: 3,
          stateSha: await quota(page, (q) => q.expected(3)),
        },
      });
      expect(await page.$eval('#life-status', (el) => el.textContent)).toMatch(/step 3/);

      // (b) a bigger dataset under the same name does not fit: a clear error, the stored one reads back unchanged
      const big = await data(page, (d) => d.importSynthetic({ seed: 2, train: 2000, test: 16 }));
      expect(big.ok ? 'imported' : big.error.name).toBe('StorageQuotaError');
      if (!big.ok) {
        expect(big.error.message).toMatch(
          /storage quota exceeded while writing chunk .* to IndexedDB webddp-datasets\/datasets: about \d+\.\d MiB more is needed/,
        );
        // it never calls free what the browser just refused (Chromium's estimate() quota is usage plus a fixed amount)
        const needed = Number(/about (\d+\.\d) MiB more is needed/.exec(big.error.message)?.[1]);
        const free = Number(/\((\d+\.\d) MiB free\)/.exec(big.error.message)?.[1] ?? 0);
        expect(free).toBeLessThan(needed);
      }
      expect(await data(page, (d) => d.readBack('synthetic'))).toEqual(before);
      expect(await data(page, (d) => d.listChunks())).toEqual(chunks); // nothing of the failed import is left

      // with the filler gone there is room again, and the same save succeeds
      await quota(page, (q) => q.unfill());
      const again = await quota(page, (q) => q.save(6));
      expect(again.ok ? again.value.where : again.error.message).toBe('IndexedDB webddp-checkpoints/step-6');
      expect(session.errors).toEqual([]);
    },
  );
});
