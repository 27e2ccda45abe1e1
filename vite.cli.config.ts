// Builds the Node side (the `webddp` CLI and its worker-thread entry) into self-contained ES
// modules in dist-cli/: everything bundled except Dawn (`webgpu`, a native addon) and Node's own
// modules, so dist-cli plus node_modules/webgpu is all a GPU machine needs.
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
      input: { webddp: 'src/cli/main.ts', 'rank-worker': 'workers/node-rank.worker.ts' },
      external: ['webgpu', 'vite', 'puppeteer', /^node:/],
      output: { format: 'es', entryFileNames: '[name].mjs', chunkFileNames: 'chunks/[name]-[hash].mjs' },
    },
  },
  ssr: { noExternal: true, external: ['webgpu', 'vite', 'puppeteer'], target: 'node' },
  logLevel: 'warn',
});
