// The CLI's static server (webddp check/bench --runtime chromium) serves the pages cross-origin
// isolated, as Vite's dev and preview servers do (their headers checked here too): COOP same-origin and COEP require-corp on every file, so a page has
// SharedArrayBuffer (the workers' shared-memory links); a path outside the served folders is a 404.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveStatic, type StaticSite } from '../../src/cli/static-server.ts';
import viteConfig from '../../vite.config.ts';

let dir = '';
let site: StaticSite;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'webddp-static-'));
  mkdirSync(join(dir, 'dist'));
  mkdirSync(join(dir, 'fixtures'));
  writeFileSync(join(dir, 'dist', 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(dir, 'fixtures', 'f.json'), '{}');
  site = await serveStatic(join(dir, 'dist'), join(dir, 'fixtures'));
});
afterAll(async () => {
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('static server', () => {
  it('serves pages and fixtures cross-origin isolated', async () => {
    for (const path of ['/', '/index.html', '/fixtures/f.json']) {
      const r = await fetch(`${site.origin}${path}`);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('cross-origin-opener-policy'), path).toBe('same-origin');
      expect(r.headers.get('cross-origin-embedder-policy'), path).toBe('require-corp');
      await r.arrayBuffer();
    }
  });

  it('answers 404 for a missing file or a path leaving the served folder', async () => {
    for (const path of ['/nope.js', '/..%2f..%2fetc%2fpasswd']) {
      const r = await fetch(`${site.origin}${path}`);
      expect(r.status, path).toBe(404);
      await r.arrayBuffer();
    }
  });
});

describe('vite dev and preview servers', () => {
  it('send the same isolation headers', () => {
    const want = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
    expect(viteConfig.server?.headers).toEqual(want);
    expect(viteConfig.preview?.headers).toEqual(want);
  });
});
