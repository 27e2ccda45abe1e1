// Float32 arithmetic in JavaScript numbers, to emulate PyTorch's float32 CPU kernels bit for bit.
// A float32 +, -, *, / or sqrt done in float64 and rounded with Math.fround is correctly rounded
// (float64 carries more than 2 * 24 + 2 bits, so the double rounding is innocuous). A fused
// multiply-add a * b + c is not: the exact product fits in float64, but the sum may round twice;
// fma32 detects that case with TwoSum and rounds once. PyTorch's AVX2 / AVX-512 kernels use FMA
// for lerp, add(alpha=) and (by compiler contraction) x * y + z.

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** Rounds to the nearest float32 (alias of Math.fround, named for reading). */
export const f32 = Math.fround;

/** The float32 next to float32 `x` towards +Infinity (`dir` 1) or -Infinity (`dir` -1). */
export function nextFloat32(x: number, dir: 1 | -1): number {
  if (Number.isNaN(x) || x === dir * Infinity) return x;
  if (x === 0) return dir * 2 ** -149;
  F32[0] = x;
  const bits = U32[0]!;
  U32[0] = x > 0 === dir > 0 ? bits + 1 : bits - 1;
  return F32[0];
}

/** fmaf(a, b, c) for float32 a, b, c: a * b + c with a single rounding to float32. */
export function fma32(a: number, b: number, c: number): number {
  const p = a * b; // exact: 24 + 24 bits
  const s = p + c;
  const r = Math.fround(s);
  if (r === s || !Number.isFinite(s)) return r;
  // TwoSum: p + c = s + e exactly. Rounding s instead of p + c errs only when s is a float32 tie.
  const bb = s - p;
  const e = p - (s - bb) + (c - bb);
  if (e === 0) return r;
  const o = nextFloat32(r, r < s ? 1 : -1);
  if (Math.abs(s - r) !== Math.abs(o - s)) return r;
  return e > 0 ? Math.max(r, o) : Math.min(r, o);
}
