// The tiled linear kernels against the CPU reference: the forward (linear_forward_tiled, then
// linear_forward_reduce) and the weight gradient (linear_backward_weight_tiled, then
// conv2d_backward_weight_reduce, accumulating into a gradient arena that already holds values), with
// the device's tiles and 8 x 8 tiles of 4-wide steps, so that samples, features and slices all end in
// partial tiles; one slice and three (slices of 100 inputs or 50 samples: not multiples of the step).
import { cdiv } from '../../gpu/op.ts';
import { KERNELS, type KernelName } from '../../gpu/kernels.ts';
import { packHalves } from '../../numeric/f16.ts';
import { half } from './half-acts.ts';
import { linearBackwardWeight, linearForward, type LinearShape } from '../../reference/linear.ts';
import { expectClose } from './close.ts';
import { accumulated, arena, randn, runOp } from './run-op.ts';
import { reduceLinearForward, reduceLinearWeight } from './linear-reduce.ts';
import { KERNEL_TOL, type OpCase } from './case.ts';

const SHAPES: LinearShape[] = [
  { n: 3, i: 7, o: 5 },
  { n: 9, i: 33, o: 10 },
  { n: 70, i: 300, o: 37 },
];
const SMALL_TILES = { TN: 8, TO: 8, TK: 4 };
const WEIGHT_SHAPES: LinearShape[] = [
  { n: 3, i: 7, o: 5 },
  { n: 150, i: 70, o: 37 },
];
const SMALL_WEIGHT_TILES = { TO: 8, TI: 8, TK: 4 };
const tilesName = (t: Readonly<Record<string, number>>) =>
  Object.keys(t).length === 0 ? "of the device's tuning" : JSON.stringify(t);
const ll = (s: LinearShape) => `x=[${s.n},${s.i}] w=[${s.o},${s.i}]`;

/** The sum of `splits` slices of [n, o] partial sums, in slice order, plus the bias (the reduce kernel's arithmetic). */
function reduceSlices(partial: Float32Array, b: Float32Array, s: LinearShape, splits: number, relu: boolean) {
  const count = s.n * s.o;
  return Float32Array.from({ length: count }, (_, at) => {
    let v = 0;
    for (let k = 0; k < splits; k++) v = Math.fround(v + (partial[k * count + at] ?? 0));
    v = Math.fround(v + (b[at % s.o] ?? 0));
    return relu ? Math.max(v, 0) : v;
  });
}

export const denseTiledCases = {
  linear_forward_tiled: SHAPES.flatMap((s, k) =>
    [{}, SMALL_TILES].flatMap((tiles: Readonly<Record<string, number>>) =>
      [1, 3].map((splits): OpCase => ({
        name: `${ll(s)} tiles ${tilesName(tiles)} splits=${splits} relu=true (with reduce)`,
        async run(gpu) {
          const o = { ...KERNELS.linear_forward_tiled.overrides, ...gpu.kernels.tuning.linear_forward_tiled, ...tiles };
          const x = randn(s.n * s.i, 61 + k);
          const w = randn(s.o * s.i, 62 + k, 0.5);
          const b = randn(s.o, 63 + k);
          const { data, offsets } = arena(3, w, b);
          const { partial } = await runOp(
            gpu,
            'linear_forward_tiled',
            { ...s, w_off: offsets[0] ?? 0, splits },
            { x, theta: data, partial: splits * s.n * s.o },
            [cdiv(s.o, o.TO ?? 64), cdiv(s.n, o.TN ?? 64), splits],
            tiles,
          );
          const y = await reduceLinearForward(gpu, s, partial!, data, offsets[1] ?? 0, splits);
          expectClose('y', y, linearForward(x, w, b, s, true), KERNEL_TOL);
        },
      })),
    ),
  ),
  linear_forward_reduce: [1, 3].flatMap((splits) =>
    [false, true].map((relu): OpCase => {
      const s = { n: 9, i: 1, o: 10 };
      return {
        name: `sums ${splits} slices of [${s.n},${s.o}] with the bias, relu=${relu}`,
        async run(gpu) {
          const partial = randn(splits * s.n * s.o, 64 + splits);
          const b = randn(s.o, 65);
          const { data, offsets } = arena(2, b);
          const y = await reduceLinearForward(gpu, s, partial, data, offsets[0] ?? 0, splits, relu);
          expectClose('y', y, reduceSlices(partial, b, s, splits, relu), { rtol: 0, atol: 0 });
        },
      };
    }),
  ),
  linear_backward_weight_tiled: WEIGHT_SHAPES.flatMap((s, k) =>
    [{}, SMALL_WEIGHT_TILES].flatMap((tiles: Readonly<Record<string, number>>) =>
      [1, 3].map((splits): OpCase => ({
        name: `${ll(s)} tiles ${tilesName(tiles)} splits=${splits} (with reduce, accumulating)`,
        async run(gpu) {
          const o = {
            ...KERNELS.linear_backward_weight_tiled.overrides,
            ...gpu.kernels.tuning.linear_backward_weight_tiled,
            ...tiles,
          };
          const dy = randn(s.n * s.o, 66 + k);
          const x = randn(s.n * s.i, 67 + k);
          const before = randn(4 + s.o * s.i + s.o + 3, 68 + k);
          const wOff = 4;
          const bOff = wOff + s.o * s.i + 2;
          const { partial } = await runOp(
            gpu,
            'linear_backward_weight_tiled',
            { ...s, splits },
            { dy, x, partial: splits * s.o * (s.i + 1) },
            [cdiv(s.i, o.TI ?? 64), cdiv(s.o, o.TO ?? 64), splits],
            tiles,
          );
          const grad = await reduceLinearWeight(gpu, s, partial!, before, splits, wOff, bOff);
          const ref = linearBackwardWeight(dy, x, s);
          expectClose('grad', grad, accumulated(before, wOff, ref.dw, bOff, ref.db), KERNEL_TOL);
        },
      })),
    ),
  ),
} satisfies Record<string, OpCase[]>;

const HALF: LinearShape = { n: 3, i: 33, o: 10 };

/** The fp16-activation forms (x stored as packed halves, half-acts.ts) of the two tiled kernels. */
export const halfActDenseTiledCases: Partial<Record<KernelName, OpCase[]>> = {
  linear_forward_tiled: [
    {
      name: `fp16 x: x=[${HALF.n},${HALF.i}] w=[${HALF.o},${HALF.i}] tiles ${JSON.stringify(SMALL_TILES)} splits=3 relu=true (with reduce)`,
      async run(gpu) {
        const x = half(randn(HALF.n * HALF.i, 90));
        const w = randn(HALF.o * HALF.i, 91, 0.5);
        const b = randn(HALF.o, 92);
        const { data, offsets } = arena(5, w, b);
        const { partial } = await runOp(
          gpu,
          'linear_forward_tiled',
          { ...HALF, w_off: offsets[0] ?? 0, splits: 3 },
          { x: packHalves(x), theta: data, partial: 3 * HALF.n * HALF.o },
          [cdiv(HALF.o, SMALL_TILES.TO), cdiv(HALF.n, SMALL_TILES.TN), 3],
          SMALL_TILES,
          ['x'],
        );
        const y = await reduceLinearForward(gpu, HALF, partial!, data, offsets[1] ?? 0, 3);
        expectClose('y', y, linearForward(x, w, b, HALF, true), KERNEL_TOL);
      },
    },
  ],
  linear_backward_weight_tiled: [
    {
      name: `fp16 x: dy=[${HALF.n},${HALF.o}] x=[${HALF.n},${HALF.i}] tiles ${JSON.stringify(SMALL_WEIGHT_TILES)} splits=1 (with reduce)`,
      async run(gpu) {
        const dy = randn(HALF.n * HALF.o, 93);
        const x = half(randn(HALF.n * HALF.i, 94));
        const { o, i } = HALF;
        const { partial } = await runOp(
          gpu,
          'linear_backward_weight_tiled',
          { ...HALF, splits: 1 },
          { dy, x: packHalves(x), partial: o * (i + 1) },
          [cdiv(i, SMALL_WEIGHT_TILES.TI), cdiv(o, SMALL_WEIGHT_TILES.TO), 1],
          SMALL_WEIGHT_TILES,
          ['x'],
        );
        const grad = await reduceLinearWeight(gpu, HALF, partial!, o * i + o, 1, 0, o * i);
        const ref = linearBackwardWeight(dy, x, HALF);
        expectClose('grad', grad, [...ref.dw, ...ref.db], KERNEL_TOL);
      },
    },
  ],
};
