// Float32 `Tensor.uniform_(from, to)` on PyTorch's CPU generator, bit for bit, and the single-
// rounding float32 fused multiply-add it relies on. Sources: aten/src/ATen/native/
// DistributionTemplates.h (bounds checks), native/cpu/DistributionTemplates.h uniform_kernel
// (from/to cast to float), core/DistributionsHelper.h uniform_real_distribution (one 32-bit draw
// per float element) and core/TransformationHelper.h uniform_real:
//   x = (random() & 0xFFFFFF) * 2^-24;  value = x * (to - from) + from     (all float32)
// x86 builds (AVX2 / AVX512 kernels) contract the last line into one FMA, so it is rounded once.

import type { CpuGenerator } from './generator.ts';

/** The largest finite float32 (std::numeric_limits<float>::max()). */
const FLOAT32_MAX = 3.4028234663852886e38;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The float32 next to the float32 `r`, towards +Infinity (dir 1) or -Infinity (dir -1). */
function nextFloat32(r: number, dir: 1 | -1): number {
  if (r === 0) return dir * 2 ** -149;
  f32[0] = r;
  const up = r > 0 === dir > 0; // moving away from zero increases the magnitude bits
  u32[0] = (u32[0] ?? 0) + (up ? 1 : -1);
  return f32[0] ?? 0;
}

/**
 * fmaf(a, b, c) for float32 a, b, c: a * b + c rounded once to float32 (round to nearest, ties
 * to even). The product of two float32s is exact in a double; the double sum s = p + c may be
 * rounded, but rounding s again to float32 only goes wrong when s falls exactly on a midpoint
 * between two float32s while the exact sum does not (a double closer to the exact sum than s
 * cannot exist, so the exact sum lies on the same side of every other midpoint). There the sign
 * of the sum's rounding error (Knuth's TwoSum) decides.
 */
export function fmaF32(a: number, b: number, c: number): number {
  const p = a * b;
  const s = p + c;
  const r = Math.fround(s);
  if (r === s || !Number.isFinite(r)) return r;
  const sp = s - c;
  const err = p - sp + (c - (s - sp)); // exact: p + c = s + err
  if (err === 0) return r;
  const o = nextFloat32(r, s > r ? 1 : -1); // the float32 on the other side of s
  if ((r + o) / 2 !== s) return r; // s is not a midpoint: rounding s is rounding the exact sum
  return err > 0 ? Math.max(r, o) : Math.min(r, o);
}

/** Checks `from`/`to` like at::native::uniform_impl_ does for a float32 tensor. */
function checkBounds(from: number, to: number): void {
  if (!(from >= -FLOAT32_MAX && from <= FLOAT32_MAX))
    throw new RangeError(`uniform_: from=${from} is out of bounds for float32`);
  if (!(to >= -FLOAT32_MAX && to <= FLOAT32_MAX))
    throw new RangeError(`uniform_: to=${to} is out of bounds for float32`);
  if (from > to) throw new RangeError(`uniform_ expects a [from, to) range, but found from=${from} > to=${to}`);
  if (to - from > FLOAT32_MAX)
    throw new RangeError(`uniform_ expects to-from <= float32 max, but found to=${to} and from=${from}`);
}

/**
 * `out.uniform_(from, to, generator=g)` for a contiguous float32 tensor: fills `out` in memory
 * order, one 32-bit draw per element, and returns it. `from` and `to` are Python floats
 * (doubles); they are cast to float32 first, as PyTorch does.
 */
export function fillUniformF32(g: CpuGenerator, out: Float32Array, from: number, to: number): Float32Array {
  checkBounds(from, to);
  const f = Math.fround(from);
  const d = Math.fround(Math.fround(to) - f);
  for (let i = 0; i < out.length; i++) {
    const x = (g.random() & 0xffffff) * 2 ** -24;
    out[i] = fmaF32(x, d, f);
  }
  return out;
}

/** `torch.empty(n).uniform_(from, to, generator=g)`: n float32 values; `(g, n, 0, 1)` is torch.rand(n). */
export function uniformF32(g: CpuGenerator, n: number, from = 0, to = 1): Float32Array {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new RangeError(`uniform_: element count must be a non-negative integer (got ${n})`);
  return fillUniformF32(g, new Float32Array(n), from, to);
}
