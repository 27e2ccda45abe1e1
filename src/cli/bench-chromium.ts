// Node only: `webddp bench --runtime chromium`: builds the pages (vite), serves them on localhost
// (vite preview; WebGPU needs a secure context), opens bench.html in headless Chromium with
// WebGPU (system Chromium; SwiftShader where there is no GPU) and prints what the page measured.
// Needs the development dependencies (vite, puppeteer) and a Chromium (npm run setup).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CliEnv, CliIO } from './command.ts';

const FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-unsafe-swiftshader',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // On a busy CPU a SwiftShader shader compile or step can outlast the GPU process's hang
  // watchdog, which then kills it (and the page's device) mid-benchmark.
  '--disable-gpu-watchdog',
];

interface BenchState {
  done: boolean;
  result?: unknown;
  error?: string;
}

export async function runChromiumBench(
  query: string,
  io: CliIO,
  env: CliEnv,
  json: boolean,
  timeoutMs: number,
): Promise<number> {
  const root = fileURLToPath(new URL('../', env.rankWorkerUrl));
  const chromium = process.env.WEBDDP_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) throw new Error(`no Chromium at ${chromium}: run 'npm run setup' or set WEBDDP_CHROMIUM`);
  const vite = await import('vite').catch(() => {
    throw new Error('--runtime chromium needs the development dependencies (npm install in a checkout)');
  });
  const puppeteer = (await import('puppeteer')).default;
  io.err('building the pages (vite) ...\n');
  await vite.build({ root, logLevel: 'warn', build: { outDir: 'dist' } });
  const server = await vite.preview({
    root,
    logLevel: 'warn',
    build: { outDir: 'dist' },
    preview: { host: 'localhost', port: 0, strictPort: true, open: false },
  });
  const address = server.httpServer.address();
  // protocolTimeout: the page's polls may wait long behind a busy main thread (TF.js's first step).
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: FLAGS,
    protocolTimeout: timeoutMs,
  });
  try {
    if (address === null || typeof address === 'string') throw new Error('vite preview reported no port');
    const page = await browser.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') io.err(`page: ${m.text()}\n`);
    });
    page.on('error', (e) => io.err(`page crashed: ${e.message}\n`));
    await page.goto(`http://localhost:${address.port}/bench.html?${query}`);
    io.err(`running bench.html?${query} in headless Chromium ...\n`);
    await page
      .waitForFunction(() => (window as { webddpBench?: BenchState }).webddpBench?.done === true, {
        timeout: timeoutMs,
        polling: 1000,
      })
      .catch((e: unknown) => {
        const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : '';
        throw new Error(`waiting for the benchmark page failed${cause}`, { cause: e });
      });
    const state = await page.evaluate(() => (window as { webddpBench?: BenchState }).webddpBench);
    if (!state || state.error) throw new Error(`the benchmark page failed: ${state?.error ?? 'no result'}`);
    if (!json) io.out(`${await page.$eval('#table', (el) => el.textContent ?? '')}\n`);
    io.out(`${JSON.stringify(state.result)}\n`);
    return 0;
  } finally {
    await browser.close();
    await server.close();
  }
}
