// The fp16 forms (src/gpu/half-acts.ts) of the pooling and linear kernels that read or write a
// saved activation, against the CPU reference on the half-rounded inputs (criteria: half-acts.ts).
import type { KernelName } from '../../gpu/kernels.ts';
import { cdiv, grid1d } from '../../gpu/op.ts';
import { packHalves } from '../../numeric/f16.ts';
import { linearBackwardInput, linearBackwardWeight, linearForward, type LinearShape } from '../../reference/linear.ts';
import { maxPool2dBackward, maxPool2dForward, type MaxPool2dShape } from '../../reference/maxpool2d.ts';
import { expectClose } from './close.ts';
import { expectRounded, half } from './half-acts.ts';
import { arena, randn, runOp } from './run-op.ts';
import { KERNEL_TOL, type OpCase } from './case.ts';

const POOLS: MaxPool2dShape[] = [
  { nc: 3, h: 5, w: 7 },
  { nc: 1, h: 6, w: 6 }, // 9 outputs: an odd tail
];
const LINEAR: LinearShape = { n: 3, i: 33, o: 10 };
const reluish = (n: number, seed: number) => half(randn(n, seed).map((v) => Math.max(0, v)));

export const halfActDenseCases: Partial<Record<KernelName, OpCase[]>> = {
  maxpool2d_forward: POOLS.map((s, k): OpCase => ({
    name: `fp16 x and y: x=[${s.nc},${s.h},${s.w}]`,
    async run(gpu) {
      const x = half(randn(s.nc * s.h * s.w, 76 + k));
      const count = s.nc * Math.floor(s.h / 2) * Math.floor(s.w / 2);
      const { y } = await runOp(
        gpu,
        'maxpool2d_forward',
        s,
        { x: packHalves(x), y: Math.ceil(count / 2) },
        (o) => grid1d(Math.ceil(count / 2), o.WG ?? 64),
        {},
        ['x', 'y'],
      );
      // the maximum of halves is a half: stored exactly
      expectRounded('y', y!, maxPool2dForward(x, s), { rtol: 0, atol: 0 });
    },
  })),
  maxpool2d_backward: [
    {
      name: `fp16 x: x=[${POOLS[0]?.nc},${POOLS[0]?.h},${POOLS[0]?.w}] relu_mask=true (ties between equal halves)`,
      async run(gpu) {
        const s = POOLS[0] ?? { nc: 1, h: 2, w: 2 };
        const x = reluish(s.nc * s.h * s.w, 78);
        const dy = randn(s.nc * Math.floor(s.h / 2) * Math.floor(s.w / 2), 79);
        const { dx } = await runOp(
          gpu,
          'maxpool2d_backward',
          { ...s, relu_mask: 1 },
          { x: packHalves(x), dy, dx: new Float32Array(s.nc * s.h * s.w).fill(NaN) },
          (o) => grid1d(s.nc * Math.ceil(s.h / 2) * Math.ceil(s.w / 2), o.WG ?? 64),
          {},
          ['x'],
        );
        expectClose('dx', dx!, maxPool2dBackward(x, dy, s, true), { rtol: 0, atol: 0 });
      },
    },
  ],
  linear_forward: [
    {
      name: `fp16 x: x=[${LINEAR.n},${LINEAR.i}] w=[${LINEAR.o},${LINEAR.i}] relu=true`,
      async run(gpu) {
        const x = half(randn(LINEAR.n * LINEAR.i, 80));
        const w = randn(LINEAR.o * LINEAR.i, 81, 0.5);
        const b = randn(LINEAR.o, 82);
        const { data, offsets } = arena(5, w, b);
        const { y } = await runOp(
          gpu,
          'linear_forward',
          { ...LINEAR, w_off: offsets[0] ?? 0, b_off: offsets[1] ?? 0, relu: 1 },
          { x: packHalves(x), theta: data, y: LINEAR.n * LINEAR.o },
          (o) => [cdiv(cdiv(LINEAR.o, 4), o.WG_X ?? 16), cdiv(cdiv(LINEAR.n, 4), o.WG_Y ?? 4), 1],
          {},
          ['x'],
        );
        expectClose('y', y!, linearForward(x, w, b, LINEAR, true), KERNEL_TOL);
      },
    },
  ],
  linear_backward_input: [
    {
      name: `fp16 x: dy=[${LINEAR.n},${LINEAR.o}] w=[${LINEAR.o},${LINEAR.i}] relu_mask=true`,
      async run(gpu) {
        const dy = randn(LINEAR.n * LINEAR.o, 83);
        const w = randn(LINEAR.o * LINEAR.i, 84, 0.5);
        const x = reluish(LINEAR.n * LINEAR.i, 85);
        const { data, offsets } = arena(2, w);
        const { dx } = await runOp(
          gpu,
          'linear_backward_input',
          { ...LINEAR, w_off: offsets[0] ?? 0, relu_mask: 1 },
          { dy, theta: data, x: packHalves(x), dx: LINEAR.n * LINEAR.i },
          (o) => [cdiv(cdiv(LINEAR.i, 4), o.WG_X ?? 16), cdiv(cdiv(LINEAR.n, 4), o.WG_Y ?? 4), 1],
          {},
          ['x'],
        );
        expectClose('dx', dx!, linearBackwardInput(dy, w, x, LINEAR, true), KERNEL_TOL);
      },
    },
  ],
  linear_backward_weight: [
    {
      name: `fp16 x: dy=[${LINEAR.n},${LINEAR.o}] x=[${LINEAR.n},${LINEAR.i}]`,
      async run(gpu) {
        const dy = randn(LINEAR.n * LINEAR.o, 86);
        const x = half(randn(LINEAR.n * LINEAR.i, 87));
        const { o, i } = LINEAR;
        const { grad } = await runOp(
          gpu,
          'linear_backward_weight',
          { ...LINEAR, w_off: 0, b_off: o * i },
          { dy, x: packHalves(x), grad: o * i + o },
          (ov) => [cdiv(cdiv(i, 4), ov.WG_X ?? 16), cdiv(cdiv(o, 4), ov.WG_Y ?? 4), 1],
          {},
          ['x'],
        );
        const ref = linearBackwardWeight(dy, x, LINEAR);
        expectClose('grad', grad!, [...ref.dw, ...ref.db], KERNEL_TOL);
      },
    },
  ],
};
