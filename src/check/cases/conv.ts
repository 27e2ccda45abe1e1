// Conv2d kernels (forward with fused bias/ReLU, backward input, split-K backward weight + reduce)
// against src/reference/conv2d.ts, on shapes that are not multiples of the 4x4 register tiles.
import type { Gpu } from '../../gpu/device.ts';
import { KERNELS } from '../../gpu/kernels.ts';
import { cdiv, type Workgroups } from '../../gpu/op.ts';
import { conv2dBackwardInput, conv2dBackwardWeight, conv2dForward, type Conv2dShape } from '../../reference/conv2d.ts';
import { expectClose } from './close.ts';
import { accumulated, arena, randn, runOp } from './run-op.ts';
import { KERNEL_TOL, type OpCase } from './case.ts';

const SHAPES: Conv2dShape[] = [
  { n: 2, ci: 3, co: 5, h: 7, w: 9 },
  { n: 1, ci: 6, co: 8, h: 5, w: 4 },
  { n: 3, ci: 1, co: 2, h: 1, w: 3 },
];
const CONV2: Conv2dShape = { n: 2, ci: 32, co: 64, h: 16, w: 16 };
const SMALL_TILES = { TCO: 4, TCI: 2, ROWS: 2, TW: 4 };
// The real-GPU tuning's 4-row pixel tiles (GPU_TUNING: 64 x 32 channels) at 128 invocations, which
// every adapter holds (SwiftShader allows 256).
const TALL_TILES = { TCO: 32, TCI: 16, ROWS: 4, TW: 16 };
// More than one 16-channel and 16-pixel block of the wide kernels, each ending in a partial one.
const WIDE: Conv2dShape = { n: 2, ci: 18, co: 20, h: 3, w: 19 };
const label = (s: Conv2dShape) => `x=[${s.n},${s.ci},${s.h},${s.w}] w=[${s.co},${s.ci},3,3]`;

/** conv2d_forward or its wide variant (b channels x b pixels per invocation's block). */
function forwardCases(kernel: 'conv2d_forward' | 'conv2d_forward_wide', b: number, shapes: Conv2dShape[]): OpCase[] {
  return shapes.flatMap((s, k) =>
    [false, true].map((relu): OpCase => ({
      name: `${label(s)} relu=${relu}`,
      async run(gpu) {
        const x = randn(s.n * s.ci * s.h * s.w, 1 + k);
        const w = randn(s.co * s.ci * 9, 2 + k, 0.5);
        const bias = randn(s.co, 3 + k, 0.5);
        const { data, offsets } = arena(7, w, bias);
        const out = await runOp(
          gpu,
          kernel,
          { ...s, w_off: offsets[0] ?? 0, b_off: offsets[1] ?? 0, relu: relu ? 1 : 0 },
          { x, theta: data, y: s.n * s.co * s.h * s.w },
          (o) => [cdiv(s.h * cdiv(s.w, b), o.WG_X ?? 64), cdiv(cdiv(s.co, b), o.WG_Y ?? 1), s.n],
        );
        expectClose('y', out.y!, conv2dForward(x, w, bias, s, relu), KERNEL_TOL);
      },
    })),
  );
}

/** conv2d_backward_input or its wide variant; dx starts as NaN, so every element must be written. */
function inputGradCases(
  kernel: 'conv2d_backward_input' | 'conv2d_backward_input_wide',
  b: number,
  shapes: Conv2dShape[],
): OpCase[] {
  return shapes.map((s, k): OpCase => ({
    name: label(s),
    async run(gpu) {
      const dy = randn(s.n * s.co * s.h * s.w, 4 + k);
      const w = randn(s.co * s.ci * 9, 5 + k, 0.5);
      const { data, offsets } = arena(3, w);
      const out = await runOp(
        gpu,
        kernel,
        { ...s, w_off: offsets[0] ?? 0 },
        { dy, theta: data, dx: new Float32Array(s.n * s.ci * s.h * s.w).fill(NaN) },
        (o) => [cdiv(s.h * cdiv(s.w, b), o.WG_X ?? 64), cdiv(cdiv(s.ci, b), o.WG_Y ?? 1), s.n],
      );
      expectClose('dx', out.dx!, conv2dBackwardInput(dy, w, s), KERNEL_TOL);
    },
  }));
}

/**
 * conv2d_backward_weight or its wide variant, in 1, 2 and 5 slices of the samples' rows (at most one
 * per row), then the reduce, accumulating into gradients that already hold values.
 */
function weightGradCases(
  kernel: 'conv2d_backward_weight' | 'conv2d_backward_weight_wide',
  shapes: Conv2dShape[],
  grid: (s: Conv2dShape, splits: number, overrides: Readonly<Record<string, number>>) => Workgroups,
): OpCase[] {
  return shapes.flatMap((s, k) =>
    [1, 2, 5].map((splits): OpCase => {
      const S = Math.min(splits, s.n * s.h);
      return {
        name: `${label(s)} splits=${S} (with reduce, accumulating)`,
        run: (gpu) =>
          checkWeightGrad(gpu, s, k, S, (p) => runOp(gpu, kernel, { ...s, splits: S }, p, (o) => grid(s, S, o))),
      };
    }),
  );
}

export const convCases = {
  conv2d_forward: forwardCases('conv2d_forward', 4, SHAPES),
  conv2d_forward_wide: forwardCases('conv2d_forward_wide', 16, [...SHAPES, WIDE]),
  conv2d_backward_input: inputGradCases('conv2d_backward_input', 4, SHAPES),
  conv2d_backward_input_wide: inputGradCases('conv2d_backward_input_wide', 16, [...SHAPES, WIDE]),
  conv2d_backward_weight: weightGradCases('conv2d_backward_weight', SHAPES, (s, S, o) => [
    cdiv(s.ci * cdiv(s.co, 4), o.WG_X ?? 64),
    1,
    S,
  ]),
  // 8 output x 2 input channels per invocation: WIDE ends both in a partial block (20 = 2*8 + 4,
  // 18 = 9*2) and SHAPES in odd input channels (3, 1).
  conv2d_backward_weight_wide: weightGradCases('conv2d_backward_weight_wide', [...SHAPES, WIDE], (s, S, o) => [
    cdiv(cdiv(s.ci, 2) * cdiv(s.co, 8), o.WG_X ?? 16),
    1,
    S,
  ]),
  // Tiles of the default size (one tile covers these images) and tiles of 4x2 channels and 2x4
  // pixels, so that channels, rows and columns all end in a partial tile; then a conv2-sized layer,
  // also with 4-row tiles.
  // The tiles of the device's tuning (registry defaults where it sets none) are resolved when the
  // case runs, as the kernel cache resolves them.
  conv2d_backward_weight_tiled: [...SHAPES, CONV2].flatMap((s, k) =>
    [{}, SMALL_TILES, ...(s === CONV2 ? [TALL_TILES] : [])].flatMap((tiles: Readonly<Record<string, number>>) =>
      [1, 3].map((splits): OpCase => ({
        name: `${label(s)} tiles ${Object.keys(tiles).length === 0 ? "of the device's tuning" : `co${tiles.TCO} ci${tiles.TCI} ${tiles.ROWS}x${tiles.TW}`} splits<=${splits} (with reduce, accumulating)`,
        run: (gpu) => {
          const o = {
            ...KERNELS.conv2d_backward_weight_tiled.overrides,
            ...gpu.kernels.tuning.conv2d_backward_weight_tiled,
            ...tiles,
          };
          const S = Math.min(splits, s.n * cdiv(s.h, o.ROWS) * cdiv(s.w, o.TW));
          return checkWeightGrad(gpu, s, k, S, (p) =>
            runOp(
              gpu,
              'conv2d_backward_weight_tiled',
              { ...s, splits: S },
              p,
              [cdiv(s.co, o.TCO) * cdiv(s.ci, o.TCI), 1, S],
              tiles,
            ),
          );
        },
      })),
    ),
  ),
  // Serial (LANES 1, the default), and lanes that do not divide the slices, more lanes than
  // slices, and outputs that end in a partial workgroup; one rank, and ranks sharing a device (each
  // rank's slices after the previous rank's, its sums one arena further on).
  conv2d_backward_weight_reduce: (
    [
      [4, 3, 5, {}, 1],
      [37, 5, 9, { OUTS: 8, LANES: 4 }, 1],
      [3, 5, 9, { OUTS: 16, LANES: 8 }, 1],
      [300, 2, 27, { OUTS: 32, LANES: 8 }, 1],
      [4, 3, 5, {}, 3],
      [37, 5, 9, { OUTS: 8, LANES: 4 }, 2],
    ] as const
  ).map(([S, co, k, tiles, R]): OpCase => ({
    name: `sums ${S} slices of [co=${co}, k=${k}+1] into weight and bias offsets${R > 1 ? `, for each of ${R} ranks` : ''}, ${JSON.stringify(tiles)}`,
    async run(gpu) {
      const partial = randn(R * S * co * (k + 1), 31 + S);
      const wOff = 2,
        bOff = wOff + co * k + 4;
      const arena = bOff + co + 3;
      const { grad } = await runOp(
        gpu,
        'conv2d_backward_weight_reduce',
        { co, k, splits: S, w_off: wOff, b_off: bOff, rank_grad: R > 1 ? arena : 0 },
        { partial, grad: R * arena },
        (o) => [cdiv(co * (k + 1), o.OUTS ?? 64), R, 1],
        tiles,
      );
      const want = new Float64Array(R * arena);
      for (let r = 0; r < R; r++) {
        for (let sl = 0; sl < S; sl++) {
          for (let c = 0; c < co; c++) {
            for (let j = 0; j <= k; j++) {
              const v = partial[((r * S + sl) * co + c) * (k + 1) + j] ?? 0;
              const at = r * arena + (j < k ? wOff + c * k + j : bOff + c);
              want[at] = (want[at] ?? 0) + v;
            }
          }
        }
      }
      expectClose('grad', grad!, Float32Array.from(want), KERNEL_TOL);
    },
  })),
} satisfies Record<string, OpCase[]>;

/**
 * Runs a split-K weight-gradient kernel (`stage1` gets dy, x and the partial buffer's length), then
 * conv2d_backward_weight_reduce into a gradient arena that already holds values, and checks the
 * arena against the CPU reference added to those values.
 */
async function checkWeightGrad(
  gpu: Gpu,
  s: Conv2dShape,
  seed: number,
  splits: number,
  stage1: (inputs: { dy: Float32Array; x: Float32Array; partial: number }) => Promise<Record<string, Float32Array>>,
): Promise<void> {
  const dy = randn(s.n * s.co * s.h * s.w, 6 + seed);
  const x = randn(s.n * s.ci * s.h * s.w, 7 + seed);
  const k1 = s.ci * 9 + 1;
  const { partial } = await stage1({ dy, x, partial: splits * s.co * k1 });
  const before = randn(11 + s.co * s.ci * 9 + s.co, 8 + seed);
  const wOff = 5;
  const bOff = wOff + s.co * s.ci * 9 + 3;
  const { grad } = await runOp(
    gpu,
    'conv2d_backward_weight_reduce',
    { co: s.co, k: s.ci * 9, splits, w_off: wOff, b_off: bOff, rank_grad: 0 },
    { partial: partial!, grad: before },
    (o) => [cdiv(s.co * k1, o.OUTS ?? 64), 1, 1],
  );
  const ref = conv2dBackwardWeight(dy, x, s);
  expectClose('grad', grad!, accumulated(before, wOff, ref.dw, bOff, ref.db), KERNEL_TOL);
}
