// The matmul ceilings' kernels (src/throughput/matmul-ceiling.ts) against the CPU reference:
// matmul_f32 within the float32 kernels' tolerance; matmul_f16_sgmat on f16-rounded operands (exact
// products, float32 sums) within K x 2^-22 x sum_k |a_k b_k| + 1e-6 of the float64 product, as the
// other subgroup-matrix kernels, on devices with f16 subgroup matrices (skipped elsewhere). Both take
// n a multiple of 64: 128 here, 2 x 2 workgroups.
import type { KernelName } from '../../gpu/kernels.ts';
import { packHalves } from '../../numeric/f16.ts';
import { matmul } from '../../reference/matmul.ts';
import { KERNEL_TOL, type OpCase } from './case.ts';
import { expectClose } from './close.ts';
import { half } from './half-acts.ts';
import { randn, runOp } from './run-op.ts';
import { expectWithin } from './sgmat.ts';

const N = 128;

export const matmulCases: Readonly<Record<Extract<KernelName, `matmul_${string}`>, readonly OpCase[]>> = {
  matmul_f32: [
    {
      name: `a=[${N},${N}] b=[${N},${N}]`,
      async run(gpu) {
        const a = randn(N * N, 91);
        const b = randn(N * N, 92);
        const { c } = await runOp(gpu, 'matmul_f32', { n: N }, { a, b, c: N * N }, [N / 64, N / 64, 1]);
        expectClose('c', c!, matmul(a, b, N), KERNEL_TOL);
      },
    },
  ],
  matmul_f16_sgmat: [
    {
      name: `a=[${N},${N}] b=[${N},${N}], fp16 a and b`,
      requires: 'subgroup-matrix',
      async run(gpu) {
        const a = half(randn(N * N, 93));
        const b = half(randn(N * N, 94));
        const { c } = await runOp(
          gpu,
          'matmul_f16_sgmat',
          { n: N },
          { a: packHalves(a), b: packHalves(b), c: N * N },
          [N / 64, N / 64, 1],
          { SG: gpu.subgroupSize },
        );
        const mag = matmul(a.map(Math.abs), b.map(Math.abs), N);
        expectWithin('c', c!, matmul(a, b, N), mag, N);
      },
    },
  ],
};
