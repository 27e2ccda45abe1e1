// Builds the Node side (the `webddp` CLI, the library entry `import ... from 'webddp'` and the
// rank worker-thread entry) into self-contained ES modules in dist-cli/: everything bundled except
// Dawn (`webgpu`, a native addon), puppeteer-core (optional, for --runtime chromium), Vite (only a
// checkout builds the pages with it) and Node's own modules, so dist-cli plus node_modules/webgpu is
// all a GPU machine needs. The library's type declarations come from tsconfig.lib.json
// (scripts/build-types.mjs).
import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    ssr: true,
    outDir: 'dist-cli',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    sourcemap: true,
    rollupOptions: {
      input: { webddp: 'src/cli/main.ts', index: 'src/api/index.ts', 'rank-worker': 'workers/node-rank.worker.ts' },
      external: ['webgpu', 'vite', 'puppeteer', 'puppeteer-core', /^node:/],
      output: { format: 'es', entryFileNames: '[name].mjs', chunkFileNames: 'chunks/[name]-[hash].mjs' },
    },
  },
  ssr: { noExternal: true, external: ['webgpu', 'vite', 'puppeteer', 'puppeteer-core'], target: 'node' },
  logLevel: 'warn',
});
