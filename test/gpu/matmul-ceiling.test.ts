// The matmul ceilings `webddp bench --profile` compares its kernels with (src/throughput/
// matmul-ceiling.ts): the fp32 ceiling kernel's product against the CPU reference, and a profiled
// bench row carrying the ceilings measured in the same run and each kernel's percentage of its one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KERNEL_TOL } from '../../src/check/cases/case.ts';
import { expectClose } from '../../src/check/cases/close.ts';
import { randn } from '../../src/check/cases/run-op.ts';
import type { Gpu } from '../../src/gpu/device.ts';
import { parseTuning, tuningFor } from '../../src/gpu/tuning.ts';
import { matmul } from '../../src/reference/matmul.ts';
import { ceilingProduct, ceilingSize } from '../../src/throughput/matmul-ceiling.ts';
import { benchmarkTraining, formatProfiles } from '../../src/throughput/train-step.ts';
import { testGpu } from '../helpers/gpu.ts';

let gpu: Gpu;
beforeAll(async () => {
  gpu = await testGpu('ceiling');
});
afterAll(() => gpu?.destroy());

describe('matmul ceilings', () => {
  it('the fp32 ceiling kernel computes A B (128 x 128, against float64)', async () => {
    const n = 128;
    const a = randn(n * n, 5);
    const b = randn(n * n, 6);
    expectClose('C', await ceilingProduct(gpu, 'fp32', n, a, b), matmul(a, b, n), KERNEL_TOL);
  });

  it('refuses a size that is not a multiple of 64', async () => {
    await expect(ceilingProduct(gpu, 'fp32', 96, new Float32Array(96 * 96), new Float32Array(96 * 96))).rejects.toThrow(
      /multiple of 64 \(got 96\)/,
    );
  });

  it('bench --profile rows carry the ceilings and each kernel against its one', async (ctx) => {
    if (!gpu.hasTimestamps) ctx.skip(`${gpu.label} has no timestamp queries: no profile`);
    // the project's test tuning (vitest.config.ts: the register convolutions, quicker to compile here)
    const tuning = parseTuning(process.env.WEBDDP_TUNING ?? '{}', tuningFor(gpu.adapter));
    const [row] = await benchmarkTraining(gpu, { batches: [2], steps: 1, warmup: 0, profile: true, tuning });
    const c = row?.ceilings;
    expect(c?.fp32).toMatchObject({ kernel: 'matmul_f32', n: ceilingSize(gpu), timing: 'gpu-timestamps' });
    expect(c?.fp32.tflops).toBeGreaterThan(0);
    if (!gpu.halfMatrix) expect(c?.f16Matrix).toBeNull();
    const conv2 = row?.kernelRates?.['conv2.forward'];
    expect(conv2?.arithmetic).toBe('fp32');
    expect(conv2?.ofCeiling).toBeCloseTo((100 * (conv2?.tflops ?? 0)) / (c?.fp32.tflops ?? 1), 6);
    const text = formatProfiles([row!]);
    expect(text).toMatch(new RegExp(`^fp32 ceiling: matmul_f32, ${ceilingSize(gpu)}\\^3 in `, 'm'));
    expect(text).toMatch(/conv2\.forward .*% of fp32$/m);
  });
});
