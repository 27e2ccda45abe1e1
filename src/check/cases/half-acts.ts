// The fp16 forms of the normalisation and convolution kernels that read or write a saved
// activation (src/gpu/half-acts.ts; the pooling and linear ones: half-acts-dense.ts), one case per
// kernel variant, against the CPU reference on the half-rounded inputs. A kernel that reads halves
// computes in float32, so its float32 output meets KERNEL_TOL as the float32 kernel's does. A kernel
// that writes halves rounds its float32 result to nearest even: each half it stores must lie between
// the halves nearest to the reference's value minus and plus KERNEL_TOL (rounding is monotonic, so
// that is exactly what a float32 result within KERNEL_TOL rounds to), and every word must be whole
// (an odd count's last high half is 0).
import type { KernelName } from '../../gpu/kernels.ts';
import { cdiv, grid1d, type Workgroups } from '../../gpu/op.ts';
import { conv2dBackwardWeight, conv2dForward, type Conv2dShape } from '../../reference/conv2d.ts';
import { f16Round, packHalves, unpackHalves } from '../../numeric/f16.ts';
import { expectClose, expectTrue } from './close.ts';
import { arena, at, randn, runOp } from './run-op.ts';
import { KERNEL_TOL, type OpCase } from './case.ts';

type Tol = { readonly rtol: number; readonly atol: number };
type Tiles = Readonly<Record<string, number>>;

/** The halves nearest to `a`'s values (an fp16 activation's contents). */
export const half = (a: Float32Array) => a.map(f16Round);
const words = (raw: Float32Array) => new Uint32Array(raw.buffer, raw.byteOffset, raw.length);

/** Throws unless every stored half lies between the halves nearest to ref -/+ tol, and the odd tail's high half is 0. */
export function expectRounded(name: string, raw: Float32Array, ref: ArrayLike<number>, tol: Tol): void {
  const w = words(raw);
  const got = unpackHalves(w, ref.length);
  const bad: string[] = [];
  for (let i = 0; i < ref.length; i++) {
    const r = ref[i] ?? 0;
    const e = tol.atol + tol.rtol * Math.abs(r);
    const v = got[i] ?? NaN;
    if (!(v >= f16Round(r - e) && v <= f16Round(r + e))) bad.push(`[${i}] ${v} for ${r}`);
  }
  expectTrue(
    bad.length === 0,
    `${name}: mismatch in ${bad.length}/${ref.length} halves, not a rounding of the reference: ${bad.slice(0, 4).join('; ')}`,
  );
  if (ref.length % 2 === 1) {
    const tail = (w[(ref.length - 1) >> 1] ?? 0) >>> 16;
    expectTrue(tail === 0, `${name}: the odd tail's high half is ${tail.toString(16)}, not 0`);
  }
}

const convLabel = (s: Conv2dShape, t: Tiles) =>
  `fp16 x and y: x=[${s.n},${s.ci},${s.h},${s.w}] w=[${s.co},${s.ci},3,3]${Object.keys(t).length > 0 ? ` tiles ${JSON.stringify(t)}` : ''} relu=true`;

/** A conv forward variant reading and writing halves (even widths: a row ends on a word). */
function forwardCase(
  kernel: 'conv2d_forward' | 'conv2d_forward_wide' | 'conv2d_forward_tiled',
  s: Conv2dShape,
  tiles: Tiles,
  wg: (o: Readonly<Record<string, number>>) => Workgroups,
): OpCase {
  return {
    name: convLabel(s, tiles),
    async run(gpu) {
      const x = half(randn(s.n * s.ci * s.h * s.w, 71));
      const w = randn(s.co * s.ci * 9, 72, 0.5);
      const b = randn(s.co, 73, 0.5);
      const { data, offsets } = arena(3, w, b);
      const { y } = await runOp(
        gpu,
        kernel,
        { ...s, w_off: offsets[0] ?? 0, b_off: offsets[1] ?? 0, relu: 1 },
        { x: packHalves(x), theta: data, y: Math.ceil((s.n * s.co * s.h * s.w) / 2) },
        wg,
        tiles,
        ['x', 'y'],
      );
      expectRounded('y', y!, conv2dForward(x, w, b, s, true), KERNEL_TOL);
    },
  };
}

/** A conv weight-gradient variant reading its input x as halves, one split (the partial sums are dw and db). */
function weightCase(
  kernel: 'conv2d_backward_weight' | 'conv2d_backward_weight_wide' | 'conv2d_backward_weight_tiled',
  s: Conv2dShape,
  tiles: Tiles,
  wg: (o: Readonly<Record<string, number>>) => Workgroups,
): OpCase {
  return {
    name: `fp16 x: x=[${s.n},${s.ci},${s.h},${s.w}] dy=[${s.n},${s.co},${s.h},${s.w}]${Object.keys(tiles).length > 0 ? ` tiles ${JSON.stringify(tiles)}` : ''} splits=1`,
    async run(gpu) {
      const dy = randn(s.n * s.co * s.h * s.w, 74);
      const x = half(randn(s.n * s.ci * s.h * s.w, 75));
      const k = s.ci * 9;
      const { partial } = await runOp(
        gpu,
        kernel,
        { ...s, splits: 1 },
        { dy, x: packHalves(x), partial: s.co * (k + 1) },
        wg,
        tiles,
        ['x'],
      );
      const ref = conv2dBackwardWeight(dy, x, s);
      const want = new Float32Array(s.co * (k + 1));
      for (let c = 0; c < s.co; c++) {
        want.set(ref.dw.subarray(c * k, (c + 1) * k), c * (k + 1));
        want[c * (k + 1) + k] = ref.db[c] ?? 0;
      }
      expectClose('partial', partial!, want, KERNEL_TOL);
    },
  };
}

const REG: Conv2dShape = { n: 2, ci: 3, co: 5, h: 3, w: 6 }; // a row of 4 + 2 pixels, a partial channel block
const WIDE: Conv2dShape = { n: 1, ci: 18, co: 20, h: 3, w: 18 }; // a 16-pixel block and a 2-pixel one
const TILED: Conv2dShape = { n: 2, ci: 3, co: 5, h: 5, w: 10 };
const SMALL_TILES = { TCO: 8, TCI: 2, ROWS: 2, TW: 4 };
const WEIGHT_TILES = { TCO: 4, TCI: 2, ROWS: 2, TW: 4 };

export const halfActCases: Partial<Record<KernelName, OpCase[]>> = {
  normalize_input: [
    {
      name: 'fp16 x: 3 images [3,5,7] (an odd length) with CIFAR mean/std',
      async run(gpu) {
        const n = 3 * 3 * 35;
        const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 53 + 5) & 0xff);
        const packed = new Uint32Array(Math.ceil(n / 4));
        new Uint8Array(packed.buffer).set(bytes);
        const mean = [0.4914, 0.4822, 0.4465];
        const std = [0.2023, 0.1994, 0.201];
        const { x } = await runOp(
          gpu,
          'normalize_input',
          { count: n, c: 3, hw: 35, pad: 0, mean: [...mean, 0], stdev: [...std, 1] },
          { bytes: packed, x: Math.ceil(n / 2) },
          (o) => grid1d(Math.ceil(n / 4), o.WG ?? 64),
          {},
          ['x'],
        );
        const c = (i: number) => Math.floor(i / 35) % 3;
        const want = Array.from(bytes, (b, i) => (b / 255 - (mean[c(i)] ?? 0)) / (std[c(i)] ?? 1));
        expectRounded('x', x!, want, { rtol: 1e-6, atol: 1e-6 });
      },
    },
  ],
  conv2d_forward: [
    forwardCase('conv2d_forward', REG, {}, (o) => [
      cdiv(REG.h * cdiv(REG.w, 4), o.WG_X ?? 64),
      cdiv(cdiv(REG.co, 4), o.WG_Y ?? 1),
      REG.n,
    ]),
  ],
  conv2d_forward_wide: [
    forwardCase('conv2d_forward_wide', WIDE, {}, (o) => [
      cdiv(WIDE.h * cdiv(WIDE.w, 16), o.WG_X ?? 16),
      cdiv(cdiv(WIDE.co, 16), o.WG_Y ?? 1),
      WIDE.n,
    ]),
  ],
  conv2d_forward_tiled: [SMALL_TILES, {}].map((t) =>
    forwardCase('conv2d_forward_tiled', TILED, t, (o) => [
      cdiv(TILED.h, at(o, 'ROWS')) * cdiv(TILED.w, at(o, 'TW')),
      cdiv(TILED.co, at(o, 'TCO')),
      TILED.n,
    ]),
  ),
  conv2d_backward_weight: [
    weightCase('conv2d_backward_weight', REG, {}, (o) => [cdiv(REG.ci * cdiv(REG.co, 4), o.WG_X ?? 64), 1, 1]),
  ],
  conv2d_backward_weight_wide: [
    weightCase('conv2d_backward_weight_wide', WIDE, {}, (o) => [
      cdiv(cdiv(WIDE.ci, 2) * cdiv(WIDE.co, 8), o.WG_X ?? 16),
      1,
      1,
    ]),
  ],
  conv2d_backward_weight_tiled: [
    weightCase('conv2d_backward_weight_tiled', TILED, WEIGHT_TILES, (o) => [
      cdiv(TILED.co, at(o, 'TCO')) * cdiv(TILED.ci, at(o, 'TCI')),
      1,
      1,
    ]),
  ],
};
