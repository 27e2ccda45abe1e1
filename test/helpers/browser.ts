// Launches the system Chromium for e2e tests (puppeteer never downloads a browser here): headless,
// WebGPU through SwiftShader, a fresh temporary profile, and every console error, page error and
// worker error collected so a test can assert there were none.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type ConsoleMessage, type Page } from 'puppeteer';

/** Flags headless Chromium needs here for WebGPU on SwiftShader, without a sandbox or background traffic. */
export const CHROMIUM_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-unsafe-swiftshader',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** The Chromium binary: $WEBDDP_CHROMIUM, else /usr/bin/chromium. */
export function chromiumPath(): string {
  return process.env.WEBDDP_CHROMIUM ?? '/usr/bin/chromium';
}

export interface BrowserSession {
  readonly browser: Browser;
  /** Console errors, uncaught page errors and worker errors seen so far, in order. */
  readonly errors: string[];
  /** Opens a page whose console, page and worker errors are collected into `errors`. */
  newPage(): Promise<Page>;
  /** Closes the browser and deletes its temporary profile (a profile folder given to launchBrowser stays). */
  close(): Promise<void>;
}

function consoleText(where: string, m: ConsoleMessage): string {
  const loc = m.location();
  return `${where} console.${m.type()}: ${m.text()}${loc.url ? ` (${loc.url}:${loc.lineNumber ?? 0})` : ''}`;
}

/** Starts Chromium with a fresh user-data-dir: a temporary folder, or the empty folder `profileDir`. */
export async function launchBrowser(extraArgs: readonly string[] = [], profileDir?: string): Promise<BrowserSession> {
  const profile = profileDir ?? (await mkdtemp(join(tmpdir(), 'webddp-chromium-')));
  const browser = await puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, ...extraArgs],
  });
  const errors: string[] = [];
  return {
    browser,
    errors,
    async newPage() {
      const page = await browser.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(consoleText('page', m));
      });
      page.on('pageerror', (e) =>
        errors.push(`page error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
      );
      page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
      page.on('workercreated', (w) => {
        w.on('console', (m) => {
          if (m.type() === 'error') errors.push(consoleText(`worker ${w.url()}`, m));
        });
        w.on('error', (e) => errors.push(`worker error (${w.url()}): ${e.message}`));
      });
      return page;
    },
    async close() {
      await browser.close();
      if (profileDir === undefined) await rm(profile, { recursive: true, force: true });
    },
  };
}
