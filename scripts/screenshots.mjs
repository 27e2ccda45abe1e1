#!/usr/bin/env node
// Regenerates the README's screenshot from the running page, so it cannot go stale silently:
// builds the pages (vite build), serves dist/ with `webddp serve`, opens the teaching page in
// headless Chromium (Debian's /usr/bin/chromium or $WEBDDP_CHROMIUM, WebGPU on SwiftShader: the
// flags test/e2e uses) through puppeteer-core, lets the default run train until rank 0 has taken
// a few steps, and writes docs/screenshot-training.png (the top of the page: settings, status,
// loss chart, memory per worker).
//
//   npm run screenshots            (about a minute on SwiftShader)
//   SCREENSHOT_STEPS=0 SCREENSHOT_OUT=/tmp/first.png npm run screenshots   (the page's first frame)
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const browserPath = process.env.WEBDDP_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-unsafe-swiftshader',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** Steps of the default run to wait for before the picture (loss curve and memory bars drawn). */
const STEPS = Number(process.env.SCREENSHOT_STEPS ?? 12);
const OUT = process.env.SCREENSHOT_OUT ?? join(root, 'docs', 'screenshot-training.png');

/** `webddp serve --port 0` (it builds the pages in a checkout): resolves with its URL. */
function serve() {
  const child = spawn(process.execPath, [join(root, 'bin', 'webddp.mjs'), 'serve', '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('exit', (code) => reject(new Error(`webddp serve exited with ${code}`)));
  });
  return { child, url };
}

const server = serve();
const profile = await mkdtemp(join(tmpdir(), 'webddp-screenshots-'));
let browser;
try {
  const url = await server.url;
  browser = await puppeteer.launch({
    executablePath: browserPath,
    headless: true,
    args: [...FLAGS, `--user-data-dir=${profile}`],
  });
  const page = await browser.newPage();
  page.on('pageerror', (e) => process.stderr.write(`page error: ${e.message}\n`));
  await page.setViewport({ width: 1280, height: 860, deviceScaleFactor: 1 });
  await page.goto(`${url}?lang=en`);
  process.stderr.write(`screenshots: ${url} open; waiting for ${STEPS} steps of the default run ...\n`);
  await page.waitForFunction((n) => (window.webddpPage?.losses().length ?? 0) >= n, { timeout: 600_000 }, STEPS);
  await new Promise((r) => setTimeout(r, STEPS > 0 ? 1500 : 4000)); // the charts' next frame
  await page.screenshot({ path: OUT, type: 'png' });
  const kb = Math.round(statSync(OUT).size / 1024);
  process.stderr.write(`screenshots: wrote ${OUT} (${kb} kB)\n`);
  if (kb > 300) throw new Error(`${OUT} is ${kb} kB: keep screenshots under 300 kB (a smaller viewport)`);
} finally {
  await browser?.close();
  server.child.kill('SIGTERM');
  await rm(profile, { recursive: true, force: true });
}
