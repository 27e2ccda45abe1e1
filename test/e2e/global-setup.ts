// e2e global setup: `vite build` into dist-e2e/ with the test harness pages (WEBDDP_HARNESS=1 makes
// vite.config.ts add test/e2e/harness/*.html as inputs), then `vite preview` on a free localhost
// port (WebGPU and crypto.subtle need a secure context: http://localhost is one). Tests get the
// URL with inject('baseUrl'); teardown closes the server and deletes dist-e2e/ (ESLint would
// otherwise lint the built bundle: eslint.config.js does not ignore dist-e2e/).
import { rm } from 'node:fs/promises';
import { build, preview, type PreviewServer } from 'vite';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** e.g. http://localhost:41234 (no trailing slash). */
    baseUrl: string;
  }
}

let server: PreviewServer | undefined;

export async function setup(project: TestProject): Promise<void> {
  process.env.WEBDDP_HARNESS = '1';
  await build({ logLevel: 'warn', build: { outDir: 'dist-e2e', emptyOutDir: true } });
  server = await preview({
    logLevel: 'warn',
    build: { outDir: 'dist-e2e' },
    preview: { host: 'localhost', port: 0, strictPort: true, open: false },
  });
  const address = server.httpServer.address();
  if (address === null || typeof address === 'string')
    throw new Error(`vite preview did not report a TCP port (${String(address)})`);
  project.provide('baseUrl', `http://localhost:${address.port}`);
}

export async function teardown(): Promise<void> {
  await server?.close();
  server = undefined;
  await rm('dist-e2e', { recursive: true, force: true });
}
