// Node only: a headless browser on the built pages, for `webddp check|bench|devices --runtime
// chromium`. The browser is an installed Chromium or Chrome (--browser PATH, else
// WEBDDP_CHROMIUM, else the first of the usual paths), driven through puppeteer-core (an optional
// dependency: no browser download). The pages come from the package's dist/ (built by `npm pack`);
// in a checkout, Vite builds them first. WebGPU on a GPU needs the platform's flags
// (--browser-flags, e.g. "--use-angle=vulkan --enable-features=Vulkan"); without a GPU, Chromium's
// SwiftShader is allowed unless --adapter gpu.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliEnv, CliIO } from './command.ts';
import { serveStatic } from './static-server.ts';

const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

const BASE_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // On a busy CPU a SwiftShader shader compile or step can outlast the GPU process's hang
  // watchdog, which then kills it (and the page's device) mid-run.
  '--disable-gpu-watchdog',
];

export interface BrowserOptions {
  /** The browser executable (default: WEBDDP_CHROMIUM, then the usual install paths). */
  readonly browser?: string;
  /** Extra flags, space-separated (e.g. "--use-angle=vulkan --enable-features=Vulkan"). */
  readonly flags?: string;
  /** false: no SwiftShader fallback (--adapter gpu). */
  readonly allowSoftware: boolean;
  readonly timeoutMs: number;
}

/** The package (or checkout) root: the folder above dist-cli/. */
export function packageRoot(env: CliEnv): string {
  return fileURLToPath(new URL('../', env.rankWorkerUrl));
}

export function findBrowser(given?: string): string {
  const path = given ?? process.env.WEBDDP_CHROMIUM ?? CANDIDATES.find((p) => existsSync(p));
  if (!path) throw new Error(`no Chromium or Chrome found (looked at ${CANDIDATES.join(', ')}): give --browser PATH`);
  if (!existsSync(path)) throw new Error(`no browser at ${path} (--browser / WEBDDP_CHROMIUM)`);
  return path;
}

/**
 * The pages: in a checkout (sources and vite.config.ts present) built afresh with Vite, so they run
 * the sources as they are; in an installed package, its dist/ (built by `npm pack`).
 */
export async function pagesDir(root: string, io: CliIO): Promise<string> {
  const dist = join(root, 'dist');
  if (existsSync(join(root, 'src')) && existsSync(join(root, 'vite.config.ts'))) {
    const vite = await import('vite').catch(() => {
      throw new Error('building the pages needs the development dependencies (npm install in the checkout)');
    });
    io.err('building the pages (vite build) ...\n');
    await vite.build({ root, logLevel: 'warn', build: { outDir: 'dist' } });
    return dist;
  }
  if (!existsSync(join(dist, 'check.html')))
    throw new Error(`the built pages are missing (${join(dist, 'check.html')}): reinstall the package`);
  return dist;
}

interface PuppeteerCore {
  launch(o: { executablePath: string; headless: boolean; args: string[]; protocolTimeout: number }): Promise<Browser>;
}
interface Browser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}
export interface Page {
  on(event: 'console', cb: (m: { type(): string; text(): string }) => void): void;
  on(event: 'error' | 'pageerror', cb: (e: Error) => void): void;
  goto(url: string): Promise<unknown>;
  evaluate<T>(fn: string): Promise<T>;
}

async function loadPuppeteer(): Promise<PuppeteerCore> {
  const name = 'puppeteer-core';
  const m = (await import(/* @vite-ignore */ name).catch(() => {
    throw new Error(`--runtime chromium needs puppeteer-core (an optional dependency): npm install puppeteer-core`);
  })) as { default: PuppeteerCore };
  return m.default;
}

/**
 * Opens `page` (e.g. 'check.html?only=kernels') in a headless browser, prints the progress lines
 * it pushes to `window.webddpProgress`, and returns what it leaves in `window[globalName]` once its
 * `done` is true, and the text of its #table. Errors name the page and the browser.
 */
export async function runPage<T>(
  env: CliEnv,
  page: string,
  globalName: string,
  o: BrowserOptions,
  io: CliIO,
): Promise<{ result: T; table: string }> {
  const root = packageRoot(env);
  const executablePath = findBrowser(o.browser);
  const dist = await pagesDir(root, io);
  const site = await serveStatic(dist, join(root, 'fixtures'));
  const puppeteer = await loadPuppeteer();
  const args = [
    ...BASE_FLAGS,
    ...(o.allowSoftware ? ['--enable-unsafe-swiftshader'] : []),
    ...(o.flags ?? '').split(/\s+/).filter((f) => f !== ''),
  ];
  // (puppeteer merges --enable-features into its own and takes it out of `args`: print them first)
  io.err(`browser: ${executablePath} ${args.slice(BASE_FLAGS.length).join(' ')}\n`);
  const browser = await puppeteer.launch({ executablePath, headless: true, args, protocolTimeout: o.timeoutMs });
  try {
    const p = await browser.newPage();
    p.on('console', (m) => {
      if (m.type() === 'error') io.err(`page: ${m.text()}\n`);
    });
    p.on('pageerror', (e) => io.err(`page error: ${e.message}\n`));
    await p.goto(`${site.origin}/${page}`);
    // Until the page is done: print the progress lines it leaves in window.webddpProgress.
    const deadline = Date.now() + o.timeoutMs;
    for (;;) {
      const poll = await p
        .evaluate<{ done: boolean; lines: string[] }>(
          `({ done: window.${globalName}?.done === true, lines: (window.webddpProgress ?? []).splice(0) })`,
        )
        .catch((e: unknown) => {
          const cause = e instanceof Error ? `: ${e.message}` : '';
          throw new Error(`waiting for ${page} in ${executablePath} failed${cause}`, { cause: e });
        });
      for (const line of poll.lines) io.err(`${line}\n`);
      if (poll.done) break;
      if (Date.now() > deadline) throw new Error(`${page} did not finish within ${o.timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const state = await p.evaluate<{ done: boolean; result?: T; error?: string }>(`window.${globalName}`);
    if (state.error !== undefined || state.result === undefined)
      throw new Error(`${page} failed in the browser: ${state.error ?? 'no result'}`);
    const table = await p.evaluate<string>(`document.querySelector('#table')?.textContent ?? ''`);
    return { result: state.result, table };
  } finally {
    await browser.close();
    await site.close();
  }
}
