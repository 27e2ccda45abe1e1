// Every WGSL kernel against its CPU reference on a real device (Dawn: the GPU, or SwiftShader): the
// cases `webddp check` runs (src/check/cases; typed Record<KernelName, ...>, so adding a kernel
// without cases does not compile).
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Gpu } from '../../src/gpu/device.ts';
import { KERNEL_CASES } from '../../src/check/cases/index.ts';
import { testGpu } from '../helpers/gpu.ts';

let gpu: Gpu;
beforeAll(async () => {
  gpu = await testGpu('ops');
});
afterAll(() => gpu?.destroy());

for (const [kernel, cases] of Object.entries(KERNEL_CASES)) {
  describe(kernel, () => {
    for (const c of cases) {
      it(c.name, async (ctx) => {
        // A subgroup kernel needs the feature and one subgroup size (the host picks SG from it).
        if (c.requires === 'subgroups' && gpu.subgroupSize === 0) ctx.skip(`${gpu.label} has no fixed-size subgroups`);
        // The f16 subgroup-matrix kernels need shader-f16 and the matrices (SwiftShader has neither).
        if (c.requires === 'subgroup-matrix' && !gpu.halfMatrix)
          ctx.skip(`${gpu.label} has no f16 x f16 -> f32 16x16x16 subgroup matrices`);
        await c.run(gpu);
      });
    }
  });
}
