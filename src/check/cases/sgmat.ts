// The f16 subgroup-matrix kernels (`*_sgmat`: f16 x f16 -> f32 16x16x16 tiles) against the CPU
// reference, on devices with shader-f16 and chromium-experimental-subgroup-matrix (skipped, said so,
// elsewhere). Every operand is rounded to f16 first (as an fp16 run holds them), so the kernel's
// products are exact and only its float32 sums differ from the float64 reference: each output may
// be off by at most K * 2^-22 * sum_k |a_k b_k| (K terms, a float32 sum's relative error per term
// 2^-24, doubled twice for accumulators that round by truncation, as tensor cores may), plus 1e-6,
// with sum_k |a_k b_k| computed by the same reference on the operands' absolute values. An output
// stored as halves must lie between the halves nearest to the reference minus and plus that bound.
// Shapes end in partial tiles (rows, columns, depth and uneven split-K slices), plus the real
// layer shapes (conv2: 32 -> 64 channels on 16 x 16; fc1: 4096 -> 128).
import { cdiv } from '../../gpu/op.ts';
import type { KernelName } from '../../gpu/kernels.ts';
import { MATRIX_TILE } from '../../nn/layers/linear-tiles.ts';
import { conv2dBackwardInput, conv2dBackwardWeight, conv2dForward, type Conv2dShape } from '../../reference/conv2d.ts';
import { f16Round, packHalves, unpackHalves } from '../../numeric/f16.ts';
import { linearBackwardWeight, linearForward, type LinearShape } from '../../reference/linear.ts';
import { expectTrue } from './close.ts';
import { half } from './half-acts.ts';
import { arena, randn, runOp } from './run-op.ts';
import { reduceLinearForward, reduceLinearWeight } from './linear-reduce.ts';
import type { OpCase } from './case.ts';

const abs = (a: Float32Array) => a.map(Math.abs);
const bound = (k: number, mag: number) => k * 2 ** -22 * mag + 1e-6;

/** Throws unless every value is within its bound of the reference. */
export function expectWithin(
  name: string,
  got: ArrayLike<number>,
  ref: ArrayLike<number>,
  mag: ArrayLike<number>,
  k: number,
) {
  const bad: string[] = [];
  for (let i = 0; i < ref.length; i++) {
    const r = ref[i] ?? 0;
    const v = got[i] ?? NaN;
    if (!(Math.abs(v - r) <= bound(k, mag[i] ?? 0))) bad.push(`[${i}] ${v} for ${r}`);
  }
  expectTrue(
    bad.length === 0,
    `${name}: ${bad.length}/${ref.length} values beyond f16-input, float32-sum error: ${bad.slice(0, 4).join('; ')}`,
  );
}

/** Throws unless every stored half lies between the halves nearest to the reference -/+ its bound. */
function expectRoundedWithin(
  name: string,
  raw: Float32Array,
  ref: ArrayLike<number>,
  mag: ArrayLike<number>,
  k: number,
) {
  const got = unpackHalves(new Uint32Array(raw.buffer, raw.byteOffset, raw.length), ref.length);
  const bad: string[] = [];
  for (let i = 0; i < ref.length; i++) {
    const r = ref[i] ?? 0;
    const e = bound(k, mag[i] ?? 0);
    const v = got[i] ?? NaN;
    if (!(v >= f16Round(r - e) && v <= f16Round(r + e))) bad.push(`[${i}] ${v} for ${r}`);
  }
  expectTrue(
    bad.length === 0,
    `${name}: ${bad.length}/${ref.length} halves not a rounding of the reference: ${bad.slice(0, 4).join('; ')}`,
  );
}

const SG = (gpu: { subgroupSize: number }) => ({ SG: gpu.subgroupSize });
const cl = (s: Conv2dShape) => `x=[${s.n},${s.ci},${s.h},${s.w}] w=[${s.co},${s.ci},3,3]`;
const ll = (s: LinearShape) => `x=[${s.n},${s.i}] w=[${s.o},${s.i}]`;
const CONV: Conv2dShape[] = [
  { n: 2, ci: 5, co: 7, h: 6, w: 6 },
  { n: 1, ci: 32, co: 64, h: 16, w: 16 },
];

function convForward(s: Conv2dShape, seed: number): OpCase {
  return {
    name: `${cl(s)} relu=true, fp16 x and y`,
    requires: 'subgroup-matrix',
    async run(gpu) {
      const x = half(randn(s.n * s.ci * s.h * s.w, 81 + seed));
      const w = half(randn(s.co * s.ci * 9, 82 + seed, 0.5));
      const b = half(randn(s.co, 83 + seed, 0.5));
      const { data, offsets } = arena(3, w, b);
      const { y } = await runOp(
        gpu,
        'conv2d_forward_sgmat',
        { ...s, w_off: offsets[0] ?? 0, b_off: offsets[1] ?? 0, relu: 1 },
        { x: packHalves(x), theta: data, y: Math.ceil((s.n * s.co * s.h * s.w) / 2) },
        [cdiv(s.n * s.h * s.w, MATRIX_TILE), cdiv(s.co, MATRIX_TILE), 1],
        SG(gpu),
        ['x', 'y'],
      );
      const mag = conv2dForward(abs(x), abs(w), abs(b), s, false);
      expectRoundedWithin('y', y!, conv2dForward(x, w, b, s, true), mag, s.ci * 9 + 1);
    },
  };
}

function convInput(s: Conv2dShape, seed: number): OpCase {
  return {
    name: cl(s),
    requires: 'subgroup-matrix',
    async run(gpu) {
      const dy = half(randn(s.n * s.co * s.h * s.w, 84 + seed));
      const w = half(randn(s.co * s.ci * 9, 85 + seed, 0.5));
      const { data, offsets } = arena(5, w);
      const { dx } = await runOp(
        gpu,
        'conv2d_backward_input_sgmat',
        { ...s, w_off: offsets[0] ?? 0 },
        { dy, theta: data, dx: s.n * s.ci * s.h * s.w },
        [cdiv(s.n * s.h * s.w, MATRIX_TILE), cdiv(s.ci, MATRIX_TILE / 2), 1],
        SG(gpu),
      );
      const mag = conv2dBackwardInput(abs(dy), abs(w), s);
      expectWithin('dx', dx!, conv2dBackwardInput(dy, w, s), mag, s.co * 9);
    },
  };
}

function convWeight(s: Conv2dShape, splits: number, seed: number): OpCase {
  return {
    name: `${cl(s)} dy=[${s.n},${s.co},${s.h},${s.w}] splits=${splits}, fp16 x (slices summed here)`,
    requires: 'subgroup-matrix',
    async run(gpu) {
      const dy = half(randn(s.n * s.co * s.h * s.w, 86 + seed));
      const x = half(randn(s.n * s.ci * s.h * s.w, 87 + seed));
      const k = s.ci * 9;
      const { partial } = await runOp(
        gpu,
        'conv2d_backward_weight_sgmat',
        { ...s, splits },
        { dy, x: packHalves(x), partial: splits * s.co * (k + 1) },
        [cdiv(s.co, MATRIX_TILE), cdiv(k + 1, MATRIX_TILE), splits],
        SG(gpu),
        ['x'],
      );
      const sum = new Float32Array(s.co * (k + 1));
      for (let sl = 0; sl < splits; sl++)
        for (let j = 0; j < sum.length; j++) sum[j] = (sum[j] ?? 0) + (partial![sl * sum.length + j] ?? 0);
      const flat = (r: { dw: Float32Array; db: Float32Array }) => {
        const out = new Float32Array(s.co * (k + 1));
        for (let c = 0; c < s.co; c++) {
          out.set(r.dw.subarray(c * k, (c + 1) * k), c * (k + 1));
          out[c * (k + 1) + k] = r.db[c] ?? 0;
        }
        return out;
      };
      const mag = flat(conv2dBackwardWeight(abs(dy), abs(x), s));
      expectWithin('dw, db', sum, flat(conv2dBackwardWeight(dy, x, s)), mag, s.n * s.h * s.w + splits);
    },
  };
}

const LINEAR: [LinearShape, number][] = [
  [{ n: 70, i: 300, o: 37 }, 3],
  [{ n: 64, i: 4096, o: 128 }, 16],
];

function linearForwardCase(s: LinearShape, splits: number, seed: number): OpCase {
  return {
    name: `${ll(s)} splits=${splits} relu=true, fp16 x (with linear_forward_reduce)`,
    requires: 'subgroup-matrix',
    async run(gpu) {
      const x = half(randn(s.n * s.i, 91 + seed));
      const w = half(randn(s.o * s.i, 92 + seed, 0.5));
      const b = half(randn(s.o, 93 + seed));
      const { data, offsets } = arena(3, w, b);
      const { partial } = await runOp(
        gpu,
        'linear_forward_sgmat',
        { ...s, w_off: offsets[0] ?? 0, splits },
        { x: packHalves(x), theta: data, partial: splits * s.n * s.o },
        [cdiv(s.n, MATRIX_TILE), cdiv(s.o, MATRIX_TILE), splits],
        SG(gpu),
        ['x'],
      );
      const y = await reduceLinearForward(gpu, s, partial!, data, offsets[1] ?? 0, splits);
      const mag = linearForward(abs(x), abs(w), abs(b), s, false);
      expectWithin('y', y, linearForward(x, w, b, s, true), mag, s.i + splits + 1);
    },
  };
}

function linearWeightCase(s: LinearShape, splits: number, seed: number): OpCase {
  return {
    name: `dy=[${s.n},${s.o}] ${ll(s)} splits=${splits}, fp16 x (with conv2d_backward_weight_reduce)`,
    requires: 'subgroup-matrix',
    async run(gpu) {
      const dy = half(randn(s.n * s.o, 94 + seed));
      const x = half(randn(s.n * s.i, 95 + seed));
      const { partial } = await runOp(
        gpu,
        'linear_backward_weight_sgmat',
        { ...s, splits },
        { dy, x: packHalves(x), partial: splits * s.o * (s.i + 1) },
        [cdiv(s.o, MATRIX_TILE), cdiv(s.i + 1, MATRIX_TILE), splits],
        SG(gpu),
        ['x'],
      );
      const grad = await reduceLinearWeight(gpu, s, partial!, s.o * s.i + s.o, splits, 0, s.o * s.i);
      const ref = linearBackwardWeight(dy, x, s);
      const mag = linearBackwardWeight(abs(dy), abs(x), s);
      const cat = (r: { dw: Float32Array; db: Float32Array }) => Float32Array.from([...r.dw, ...r.db]);
      expectWithin('dw, db', grad, cat(ref), cat(mag), s.n + splits);
    },
  };
}

export const sgmatCases: Readonly<
  Record<Exclude<KernelName & `${string}_sgmat`, `matmul_${string}`>, readonly OpCase[]>
> = {
  conv2d_forward_sgmat: CONV.map((s, i) => convForward(s, i)),
  conv2d_backward_input_sgmat: CONV.map((s, i) => convInput(s, i)),
  conv2d_backward_weight_sgmat: [convWeight(CONV[0]!, 3, 0), convWeight(CONV[1]!, 4, 1)],
  linear_forward_sgmat: LINEAR.map(([s, splits], i) => linearForwardCase(s, splits, i)),
  linear_backward_weight_sgmat: [
    linearWeightCase({ n: 150, i: 70, o: 37 }, 3, 0),
    linearWeightCase({ n: 128, i: 4096, o: 128 }, 2, 1),
  ],
};
