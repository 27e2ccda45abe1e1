// Three test tiers: unit (Node, no GPU), gpu (Node + Dawn on a real WebGPU
// implementation, one forked process per file), e2e (puppeteer + Chromium against vite preview);
// and package: the npm tarball installed into an empty folder and run there.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // At least two files at a time. vitest's default for `vitest run` is one worker less than the
    // cores: on the 2-core CI machine that is one, every file after the other, with a core idle
    // whenever a file waits (the unit files run on one thread; start-ups, compiles and Chromium
    // leave gaps). One group for every tier, e2e included, so Chromium files overlap the others
    // instead of forming a one-at-a-time tail after them.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node', pool: 'threads' },
      },
      {
        extends: true,
        test: {
          name: 'gpu',
          include: ['test/gpu/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          globalSetup: ['test/gpu/global-setup.ts'],
          // Training tests run the 'registers' convolution kernels: on SwiftShader they compile in a
          // fraction of the time of the 'wide' ones the adapter's tuning picks (a worker's pipelines:
          // about 1 s instead of 2-3 s of CPU), and every variant is checked against the CPU
          // reference in ops.test.ts and check.test.ts; learn.test.ts trains with the adapter's own.
          env: { WEBDDP_TUNING: '{"convForward":"registers","convInput":"registers","convWeight":"registers"}' },
          testTimeout: 300_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          globalSetup: ['test/e2e/global-setup.ts'],
          testTimeout: 600_000,
          hookTimeout: 300_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'package',
          include: ['test/package/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 300_000,
        },
      },
    ],
  },
});
