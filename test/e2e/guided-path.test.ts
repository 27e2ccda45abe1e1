// The guided path as a new user walks it, in headless Chromium, in English and Chinese: every
// lesson opens from its address (?lesson=ID&lang=...), shows its text, and a lesson with a run
// reaches its point on the numbers the page measured (lessons run once each, the languages taking
// turns, to keep the e2e tier short; the placements lesson twice, switching the placement control
// to one shared device for its second run; the DDP lesson then trains its live equivalence comparison;
// the desync lesson's run fails at the desync, naming both sides, with the flight recorders in the timeline); lessons whose run needs an engine feature this build lacks
// say so and offer no run. No console errors; axe finds no serious or critical violation in either
// language, on a laptop and a 375-pixel phone, where nothing overflows sideways. The DeepSpeed
// panel takes the example ZeRO-2 fp16 ds_config.json and refuses its `lr_scheduler` by name. Screenshots of the
// new views in both languages go to test-results/screenshots/, or, with WEBDDP_DOCS_SCREENSHOTS=1, to
// docs/screenshots/ (the docs show them): a test run leaves the checkout as it was.
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer';
import { LESSON_IDS, LESSONS } from '../../src/ui/lessons/index.ts';
import { missing } from '../../src/ui/lessons/features.ts';
import type { BrowserSession } from '../helpers/browser.ts';
import { seriousViolations } from './a11y.ts';
import { openBrowserPage, openPage, read, statusText, waitForState } from './page-helpers.ts';

const DOCS = process.env['WEBDDP_DOCS_SCREENSHOTS'] === '1' ? 'docs/screenshots' : 'test-results/screenshots';

/** Saves a screenshot of one element into DOCS. */
async function shot(page: Page, name: string, selector: string): Promise<void> {
  await mkdir(DOCS, { recursive: true });
  const el = await page.$(selector);
  if (!el) throw new Error(`no element ${selector} to screenshot`);
  await el.scrollIntoView();
  await el.screenshot({ path: `${DOCS}/${name}.png` });
}

/** A ZeRO-2 fp16 ds_config.json with DeepSpeed's `scheduler` key, as a user pastes it. */
const SEED_CONFIG = readFileSync(new URL('../fixtures/ds_config_zero2_fp16.json', import.meta.url), 'utf8');

let session: BrowserSession;
let page: Page;
beforeAll(async () => {
  ({ session, page } = await openBrowserPage());
  const cdp = await page.createCDPSession();
  await cdp.send('Page.setDownloadBehavior', { behavior: 'deny' });
});
afterAll(async () => session.close());

const runnable = LESSON_IDS.filter((id) => missing(LESSONS[id].needs).length === 0);
const textOnly = LESSON_IDS.filter((id) => missing(LESSONS[id].needs).length > 0);

describe('the guided path', () => {
  it.each(runnable.map((id, i) => [id, i % 2 === 0 ? 'en' : 'zh'] as const))(
    '%s (%s): the lesson’s run reaches its point',
    async (id, lang) => {
      await openPage(page, { lesson: id, lang });
      const title = LESSONS[id].text[lang].title;
      expect(await page.$eval('.lesson h3', (el) => el.textContent)).toBe(title);
      expect(await page.$eval('html', (el) => el.lang)).toBe(lang === 'zh' ? 'zh-CN' : 'en');
      await waitForState(page, ['done', 'failed', 'stopped']);
      if (id === 'placements') {
        // The same run again with every worker in one Web Worker on one device: the placement control.
        await page.waitForFunction(() => window.webddpPage?.lesson().reached === false, { polling: 50 });
        const own = await read(page, 'params');
        await page.click('#placement-shared-device');
        await page.click('#run-start');
        await page.waitForFunction(() => window.webddpPage?.state() !== 'done', { polling: 50 });
        expect(await waitForState(page, ['done', 'failed', 'stopped'])).toBe('done');
        expect(new URL(page.url()).searchParams.get('placement')).toBe('shared-device');
        await page.waitForFunction(() => window.webddpPage?.lesson().reached === true, {
          polling: 50,
          timeout: 30_000,
        });
        // the ranks sharing one device end with the same parameters, bit for bit
        expect(own).toMatch(/^[0-9a-f]{64}$/);
        expect(await read(page, 'params')).toBe(own);
        // both runs' measured step split is shown with the point
        expect(await page.$eval('.lesson-result', (el) => el.textContent)).toMatch(
          lang === 'en' ? /own devices [\d.]+ ms a step/ : /各用设备时每步 [\d.]+ 毫秒/,
        );
      }
      if (id === 'cluster') {
        // The cluster lesson's point is the export: its button (the download itself is denied here).
        await page.click('#life-export');
        await page.waitForFunction(
          () =>
            window.webddpPage?.lesson().reached === true ||
            document.querySelector('#life-status')?.classList.contains('error'),
          { polling: 50 },
        );
      }
      if (id === 'ddp-ring') {
        // After the run, the equivalence check's DDP case trained live: 2 ranks x 4 against 1 worker x 8.
        await page.waitForFunction(
          () =>
            !['', 'running'].includes(document.querySelector<HTMLElement>('.lesson-proof')?.dataset.equivalence ?? ''),
          { polling: 100, timeout: 120_000 },
        );
        const proof = await page.$eval('.lesson-proof', (el) => [
          (el as HTMLElement).dataset.equivalence,
          el.textContent,
        ]);
        expect(proof[0], proof[1] ?? '').toBe('equal');
        expect(proof[1]).toMatch(lang === 'en' ? /differ by at most \S+ in any parameter/ : /参数最大相差 \S+/);
      }
      if (id === 'desync') {
        // The run stopped at the desync; the timeline shows every rank's flight recorder and its report.
        // (either rank may be the one that reports it first)
        const status = await statusText(page);
        expect(status).toMatch(/collective desync \(bucket, count differ\)/);
        expect(status).toMatch(/rank 1 is about to run allReduce #3 \(bucket 1\b/);
        expect(status).toMatch(/rank 0 is about to run allReduce #3 \(bucket 0\b/);
        const recorded = await page.$eval('.timeline', (el) => Number((el as HTMLElement).dataset.recorded));
        expect(recorded).toBeGreaterThan(0);
        // every rank's recorded collectives, newest last: step 0's, the last one bucket 1's all-reduce
        const line = (r: number) =>
          lang === 'en'
            ? new RegExp(`^rank ${r}, 3 collectives entered: .*allReduce #2 \\(bucket 1, step 0, [\\d.]+ ms\\)$`)
            : new RegExp(`^rank ${r}，已进入 3 次集合通信：.*allReduce #2（桶 1，第 0 步，[\\d.]+ 毫秒）$`);
        expect(await page.$$eval('.timeline-records li', (els) => els.map((el) => el.textContent))).toEqual([
          expect.stringMatching(line(0)),
          expect.stringMatching(line(1)),
        ]);
        expect(await page.$eval('.timeline-report', (el) => el.textContent)).toMatch(
          /^collectives at the failure \(flight recorder\):\n {2}ranks 0, 1 are in no collective; last completed allReduce #2 \(bucket 1/,
        );
        expect(await page.$eval('.lesson-result', (el) => el.textContent)).toMatch(
          lang === 'en'
            ? /rank 1 was about to reduce bucket 1, rank 0 bucket 0/
            : /rank 1 正要归约桶 1，rank 0 正要归约桶 0/,
        );
      }
      const lesson = await read(page, 'lesson');
      expect(lesson, await statusText(page)).toEqual({ id, reached: true });
      // The address is a link to this lesson's run.
      expect(new URL(page.url()).searchParams.get('lesson')).toBe(id);
      await shot(page, `${lang}-lesson-${id}`, `#${LESSONS[id].view}`);
      expect(session.errors).toEqual([]);
    },
  );

  it.each(textOnly.map((id, i) => [id, i % 2 === 0 ? 'zh' : 'en'] as const))(
    '%s (%s): says which engine feature its run needs and starts nothing',
    async (id, lang) => {
      await openPage(page, { lesson: id, lang });
      expect(await page.$eval('.lesson h3', (el) => el.textContent)).toBe(LESSONS[id].text[lang].title);
      expect(await page.$$('.lesson .lesson-needs')).toHaveLength(1);
      expect(await page.$('#lesson-run')).toBeNull();
      expect(await read(page, 'state')).toBe('idle');
      expect(page.workers()).toHaveLength(0);
      expect(session.errors).toEqual([]);
    },
  );

  it.each(['en', 'zh'] as const)('%s: no serious accessibility violation, on a laptop and a phone', async (lang) => {
    await openPage(page, { lesson: 'ddp-ring', lang, autostart: 0 });
    // Open the answers and the numbers so their content is checked too.
    await page.$$eval('details', (ds) => ds.forEach((d) => (d.open = true)));
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, `${lang}-lessons`, '#lessons');
    await shot(page, `${lang}-calculator`, '#calc');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${DOCS}/${lang}-page.png` });
    await page.setViewport({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousViolations(page)).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${DOCS}/${lang}-phone.png` });
    // The contents bar says which view is being read.
    await page.evaluate(() => document.getElementById('memory')?.scrollIntoView());
    await page.waitForSelector('.contents a[href="#memory"][aria-current="location"]', { timeout: 5000 });
    // Keyboard: the skip link is the first stop and leads to the views.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('href'))).toBe('#views');
    expect(session.errors).toEqual([]);
  });

  it('applies the example ZeRO-2 fp16 ds_config.json to the settings, and refuses lr_scheduler by name', async () => {
    await openPage(page, { workers: 2, autostart: 0, lang: 'en' });
    await page.$eval(
      '#ds-text',
      (el, text) => {
        (el as HTMLTextAreaElement).value = text;
      },
      SEED_CONFIG,
    );
    await page.click('#ds-apply');
    expect(await page.$eval('.deepspeed', (el) => (el as HTMLElement).dataset.state)).toBe('applied');
    const value = (id: string) => page.$eval(`#cfg-${id}`, (el) => (el as HTMLInputElement).value);
    // train_batch_size 64 = micro-batch x 2 accumulation x 2 workers.
    expect([await value('mode'), await value('batchSize'), await value('gradAccum'), await value('optimizer')]).toEqual(
      ['zero2', '16', '2', 'adamw'],
    );
    expect([await value('lr'), await value('clipGradNorm'), await value('weightDecay')]).toEqual([
      '0.00002',
      '1',
      '0.01',
    ]);
    expect(await value('schedule')).toMatch(/^WarmupLR:/);
    expect(await page.$eval('#cfg-fp16', (el) => (el as HTMLInputElement).checked)).toBe(true);
    expect(await page.$eval('#run-start', (b) => (b as HTMLButtonElement).disabled)).toBe(false);
    await shot(page, 'en-deepspeed', '.deepspeed');
    await page.$eval('#ds-text', (el) => {
      (el as HTMLTextAreaElement).value = '{ "lr_scheduler": { "type": "WarmupLR" } }';
    });
    await page.click('#ds-apply');
    expect(await page.$eval('#ds-status', (el) => el.textContent)).toMatch(/lr_scheduler.*scheduler/);
    expect(await value('mode')).toBe('zero2'); // refused: nothing changed
    expect(session.errors).toEqual([]);
  });
});
