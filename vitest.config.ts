// Three test tiers: unit (Node, no GPU), gpu (Node + Dawn on a real WebGPU
// implementation, one forked process per file), e2e (puppeteer + Chromium against vite preview);
// and package: the npm tarball installed into an empty folder and run there.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The GPU tier in two projects. gpu-default: every kernel against the CPU reference, `webddp check`
// and the CLI as a user starts it, on the adapter a user gets by default (the GPU, else SwiftShader).
// gpu: the training runs, on Mesa's lavapipe where `npm run setup` put it (.lavapipe/): on the 2-core
// machine the whole tier took 277 s there and 580 s on SwiftShader. A WEBDDP_ADAPTER given to
// `npm test` puts both projects on that adapter (docs/testing.md).
const DEFAULT_ADAPTER_FILES = [
  'test/gpu/ops.test.ts',
  'test/gpu/kernels.test.ts',
  'test/gpu/check.test.ts',
  'test/gpu/cli-process.test.ts',
];
const TRAINING_ADAPTER: Record<string, string> =
  process.env.WEBDDP_ADAPTER === undefined && existsSync('.lavapipe/lvp_icd.json')
    ? { WEBDDP_ADAPTER: 'lavapipe' }
    : {};
/** What both GPU projects share. */
const GPU = {
  environment: 'node' as const,
  pool: 'forks' as const,
  globalSetup: ['test/gpu/global-setup.ts'],
  testTimeout: 300_000,
  hookTimeout: 120_000,
  // Training tests run the 'registers' convolution kernels: on SwiftShader they compile in a
  // fraction of the time of the 'wide' ones the adapter's tuning picks (a worker's pipelines:
  // about 1 s instead of 2-3 s of CPU), and every variant is checked against the CPU
  // reference in ops.test.ts and check.test.ts; learn.test.ts trains with the adapter's own.
  env: { WEBDDP_TUNING: '{"convForward":"registers","convInput":"registers","convWeight":"registers"}' },
};

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
          ...GPU,
          name: 'gpu',
          include: ['test/gpu/**/*.test.ts'],
          exclude: DEFAULT_ADAPTER_FILES,
          env: { ...GPU.env, ...TRAINING_ADAPTER },
        },
      },
      {
        extends: true,
        test: { ...GPU, name: 'gpu-default', include: DEFAULT_ADAPTER_FILES },
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
