// Every WGSL kernel against its CPU reference on a real device (Dawn: the GPU, or SwiftShader).
// CASES is typed Record<KernelName, ...>: adding a kernel without test cases does not compile.
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Gpu } from '../../src/gpu/device.ts';
import type { KernelName } from '../../src/gpu/kernels.ts';
import { testGpu } from '../helpers/gpu.ts';
import type { OpCase } from './cases/case.ts';
import { convCases } from './cases/conv.ts';
import { convTiledCases } from './cases/conv-tiled.ts';
import { denseCases } from './cases/dense.ts';
import { optimCases } from './cases/optim.ts';
import { fp16Cases } from './cases/fp16.ts';

const CASES: Record<KernelName, readonly OpCase[]> = {
  ...convCases,
  ...convTiledCases,
  ...denseCases,
  ...optimCases,
  ...fp16Cases,
};

let gpu: Gpu;
beforeAll(async () => {
  gpu = await testGpu('ops');
});
afterAll(() => gpu?.destroy());

for (const [kernel, cases] of Object.entries(CASES)) {
  describe(kernel, () => {
    for (const c of cases) {
      it(c.name, async (ctx) => {
        // A subgroup kernel needs the feature and one subgroup size (the host picks SG from it).
        if (c.requires === 'subgroups' && gpu.subgroupSize === 0) ctx.skip(`${gpu.label} has no fixed-size subgroups`);
        await c.run(gpu);
      });
    }
  });
}
