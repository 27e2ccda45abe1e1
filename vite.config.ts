// Vite serves and builds the teaching page (index.html), the benchmark page (bench.html) and the
// check page (check.html). `base: './'`: the build refers to its files relatively, so dist/ works
// from any static host and any path.
// COOP/COEP make the pages cross-origin isolated, which gives them SharedArrayBuffer (the workers'
// shared-memory links, src/comm/shared-link.ts, where a run asks for them; a host without these
// headers gives MessagePort messages and the log says which) and workers performance.now() at
// 5 us rather than 100 us resolution (the step and communication timings the views draw).
// With WEBDDP_HARNESS=1 (e2e tests only: test/e2e/global-setup.ts) the build also takes the test
// harness pages test/e2e/harness/*.html and goes to dist-e2e/.
import { readdirSync } from 'node:fs';
import { defineConfig } from 'vite';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

const harness = process.env.WEBDDP_HARNESS === '1';
const harnessPages = harness
  ? Object.fromEntries(
      readdirSync('test/e2e/harness')
        .filter((f) => f.endsWith('.html'))
        .map((f) => [`harness-${f.slice(0, -5)}`, `test/e2e/harness/${f}`]),
    )
  : {};

export default defineConfig({
  server: { headers: isolation, host: 'localhost' },
  preview: { headers: isolation, host: 'localhost' },
  base: './',
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 1024,
    rolldownOptions: { input: { main: 'index.html', bench: 'bench.html', check: 'check.html', ...harnessPages } },
    ...(harness ? { outDir: 'dist-e2e' } : {}),
  },
});
