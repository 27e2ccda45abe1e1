// MaxPool2d, Linear and softmax cross-entropy kernels against the CPU reference, on odd shapes.
import { cdiv, grid1d } from '../../gpu/op.ts';
import { linearBackwardInput, linearBackwardWeight, linearForward, type LinearShape } from '../../reference/linear.ts';
import { maxPool2dBackward, maxPool2dForward, type MaxPool2dShape } from '../../reference/maxpool2d.ts';
import { softmaxXentBackward, softmaxXentForward } from '../../reference/softmax-xent.ts';
import { expectClose } from './close.ts';
import { accumulated, arena, randn, runOp } from './run-op.ts';
import { KERNEL_TOL, type OpCase } from './case.ts';

const POOLS: MaxPool2dShape[] = [
  { nc: 6, h: 7, w: 9 },
  { nc: 2, h: 4, w: 4 },
  { nc: 3, h: 3, w: 5 },
];
const LINEARS: LinearShape[] = [
  { n: 3, i: 7, o: 5 },
  { n: 9, i: 33, o: 10 },
  { n: 1, i: 4, o: 1 },
];
const pl = (s: MaxPool2dShape) => `x=[${s.nc},${s.h},${s.w}]`;
const ll = (s: LinearShape) => `x=[${s.n},${s.i}] w=[${s.o},${s.i}]`;
// ReLU-like inputs (about half exactly zero) exercise the fused ReLU masks and argmax ties.
const reluish = (n: number, seed: number) => randn(n, seed).map((v) => Math.max(0, v));

export const denseCases = {
  maxpool2d_forward: POOLS.map((s, k): OpCase => ({
    name: pl(s),
    async run(gpu) {
      const x = randn(s.nc * s.h * s.w, 11 + k);
      const count = s.nc * Math.floor(s.h / 2) * Math.floor(s.w / 2);
      const { y } = await runOp(gpu, 'maxpool2d_forward', s, { x, y: Math.max(1, count) }, (o) =>
        grid1d(Math.ceil(count / 2), o.WG ?? 64),
      );
      expectClose('y', y!.subarray(0, count), maxPool2dForward(x, s), { rtol: 0, atol: 0 });
    },
  })),
  maxpool2d_backward: POOLS.flatMap((s, k) =>
    [false, true].map((mask): OpCase => ({
      name: `${pl(s)} relu_mask=${mask}`,
      async run(gpu) {
        const x = mask ? reluish(s.nc * s.h * s.w, 12 + k) : randn(s.nc * s.h * s.w, 12 + k);
        const dy = randn(Math.max(1, s.nc * Math.floor(s.h / 2) * Math.floor(s.w / 2)), 13 + k);
        const n = s.nc * s.h * s.w;
        const { dx } = await runOp(
          gpu,
          'maxpool2d_backward',
          { ...s, relu_mask: mask ? 1 : 0 },
          // dx starts as NaN: every element, the odd edges' zeros included, must be written.
          { x, dy, dx: new Float32Array(n).fill(NaN) },
          (o) => grid1d(s.nc * Math.ceil(s.h / 2) * Math.ceil(s.w / 2), o.WG ?? 64),
        );
        const want = maxPool2dBackward(x, dy.subarray(0, s.nc * Math.floor(s.h / 2) * Math.floor(s.w / 2)), s, mask);
        expectClose('dx', dx!, want, { rtol: 0, atol: 0 });
      },
    })),
  ),
  linear_forward: LINEARS.flatMap((s, k) =>
    [
      [false, 1],
      [true, 1],
      [true, 8],
    ].map(([relu, ksplit]): OpCase => ({
      name: `${ll(s)} relu=${relu} KSPLIT=${ksplit}`,
      async run(gpu) {
        const x = randn(s.n * s.i, 21 + k);
        const w = randn(s.o * s.i, 22 + k, 0.5);
        const b = randn(s.o, 23 + k);
        const { data, offsets } = arena(5, w, b);
        const { y } = await runOp(
          gpu,
          'linear_forward',
          { ...s, w_off: offsets[0] ?? 0, b_off: offsets[1] ?? 0, relu: relu ? 1 : 0 },
          { x, theta: data, y: s.n * s.o },
          (o) => [cdiv(cdiv(s.o, 4), o.WG_X ?? 16), cdiv(cdiv(s.n, 4), o.WG_Y ?? 4), 1],
          { KSPLIT: Number(ksplit), WG_X: 4, WG_Y: 4 },
        );
        expectClose('y', y!, linearForward(x, w, b, s, Boolean(relu)), KERNEL_TOL);
      },
    })),
  ),
  linear_backward_input: LINEARS.flatMap((s, k) =>
    [false, true].map((mask): OpCase => ({
      name: `${ll(s)} relu_mask=${mask}`,
      async run(gpu) {
        const dy = randn(s.n * s.o, 24 + k);
        const w = randn(s.o * s.i, 25 + k, 0.5);
        const x = reluish(s.n * s.i, 26 + k);
        const { data, offsets } = arena(2, w);
        const { dx } = await runOp(
          gpu,
          'linear_backward_input',
          { ...s, w_off: offsets[0] ?? 0, relu_mask: mask ? 1 : 0 },
          { dy, theta: data, x, dx: s.n * s.i },
          (o) => [cdiv(cdiv(s.i, 4), o.WG_X ?? 16), cdiv(cdiv(s.n, 4), o.WG_Y ?? 4), 1],
        );
        expectClose('dx', dx!, linearBackwardInput(dy, w, x, s, mask), KERNEL_TOL);
      },
    })),
  ),
  // Plain register blocking, and NSPLIT lanes per tile (more lanes than samples in one case).
  linear_backward_weight: LINEARS.flatMap((s, k) =>
    ([{}, { WG_X: 2, WG_Y: 2, NSPLIT: 4 }, { WG_X: 1, WG_Y: 1, NSPLIT: 64 }] as Record<string, number>[]).map(
      (split): OpCase => ({
        name: `${ll(s)} ${JSON.stringify(split)} (accumulating into existing gradients)`,
        async run(gpu) {
          const dy = randn(s.n * s.o, 27 + k);
          const x = randn(s.n * s.i, 28 + k);
          const before = randn(4 + s.o * s.i + s.o + 3, 29 + k);
          const wOff = 4;
          const bOff = wOff + s.o * s.i + 2;
          const { grad } = await runOp(
            gpu,
            'linear_backward_weight',
            { ...s, w_off: wOff, b_off: bOff },
            { dy, x, grad: before },
            (o) => [cdiv(cdiv(s.i, 4), o.WG_X ?? 16), cdiv(cdiv(s.o, 4), o.WG_Y ?? 4), 1],
            split,
          );
          const ref = linearBackwardWeight(dy, x, s);
          expectClose('grad', grad!, accumulated(before, wOff, ref.dw, bOff, ref.db), KERNEL_TOL);
        },
      }),
    ),
  ),
  softmax_xent_forward: [
    [7, 10, 0],
    [70, 3, 5],
    [1, 1, 0],
  ].map(([n = 1, c = 1, row0 = 0], k): OpCase => ({
    name: `logits=[${n},${c}]${row0 ? ` from row ${row0}` : ''}`,
    async run(gpu) {
      const rows = row0 + n;
      const logits = randn(rows * c, 41 + k, 4);
      const labels = Int32Array.from({ length: rows }, (_, i) => (i * 7 + k) % c);
      const { stats } = await runOp(
        gpu,
        'softmax_xent_forward',
        { n, c, out_off: 3, row0 },
        { logits, labels, stats: 8 },
        [1, 1, 1],
      );
      const ref = softmaxXentForward(logits.subarray(row0 * c), labels.subarray(row0), { n, c });
      expectClose('stats', stats!.subarray(3, 6), [ref.loss, ref.correct, ref.lossSum], KERNEL_TOL);
    },
  })),
  softmax_xent_backward: [
    [7, 10, 1 / 7],
    [70, 3, 0.5],
  ].map(([n = 1, c = 1, scale = 1], k): OpCase => ({
    name: `logits=[${n},${c}] scale=${scale.toFixed(3)}`,
    async run(gpu) {
      const logits = randn(n * c, 51 + k, 4);
      const labels = Int32Array.from({ length: n }, (_, i) => (i * 3 + k) % c);
      const { dz } = await runOp(gpu, 'softmax_xent_backward', { n, c, scale }, { logits, labels, dz: n * c }, (o) =>
        grid1d(n * c, o.WG ?? 64),
      );
      expectClose('dz', dz!, softmaxXentBackward(logits, labels, { n, c }, scale), KERNEL_TOL);
    },
  })),
} satisfies Record<string, OpCase[]>;
