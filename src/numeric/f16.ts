// IEEE-754 binary16 on the CPU: float -> half bits with round-to-nearest-even (what torch's
// `.half()` and CUDA's __float2half_rn do), half bits -> float, and the packing of two halves into
// one 32-bit word that WGSL's pack2x16float / unpack2x16float use (element 2i in the low 16 bits,
// 2i+1 in the high). The oracle of the fp16 kernels and the arithmetic of the fp16 ring collectives.

/** The largest finite half is 65504; from 65520 up a float rounds to infinity. */
const F16_OVERFLOW = 65520;

function roundHalfEven(v: number): number {
  const f = Math.floor(v);
  const d = v - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** The binary16 bits nearest to `x` (ties to even); NaN -> 0x7e00, overflow -> +-infinity. */
export function f16Bits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a >= F16_OVERFLOW) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | roundHalfEven(a * 2 ** 24); // subnormal (0x400 is the smallest normal)
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  else if (2 ** (e + 1) <= a) e += 1;
  let m = roundHalfEven((a / 2 ** e - 1) * 1024);
  if (m === 1024) {
    m = 0;
    e += 1;
  }
  return sign | ((e + 15) << 10) | m;
}

/** The value of binary16 bits. */
export function f16Value(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const m = bits & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m === 0 ? sign * Infinity : NaN;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

/** `x` rounded to the nearest half (as torch's `x.half().float()`). */
export function f16Round(x: number): number {
  return f16Value(f16Bits(x));
}

/** Whether half bits are infinite or NaN. */
function f16NonFinite(bits: number): boolean {
  return (bits & 0x7c00) === 0x7c00;
}

// The bulk paths below (packing, unpacking, half addition) run on every fp16 step's gradients and
// inputs, hundreds of thousands of halves each: they read and write the IEEE bits through typed
// arrays instead of going through f16Bits's logarithm, and give the same bits as f16Bits /
// f16Value (test/unit/f16.test.ts compares them over every half and every rounding case).

const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);

/** The value of every half, indexed by its bits (built on first use). */
let valueTable: Float64Array | null = null;
function values(): Float64Array {
  if (valueTable) return valueTable;
  const t = new Float64Array(0x10000);
  for (let b = 0; b < 0x10000; b++) t[b] = f16Value(b);
  valueTable = t;
  return t;
}

/** f16Bits(x) for a float32 `x` (x === Math.fround(x)): the rounding done on its bits. */
function f16BitsOfFloat32(x: number): number {
  f32[0] = x;
  return f16BitsOfFloat32Bits(f32Bits[0] ?? 0);
}

/** f16Bits of the float32 whose IEEE bits are `u`. */
function f16BitsOfFloat32Bits(u: number): number {
  const sign = (u >>> 16) & 0x8000;
  const a = u & 0x7fffffff;
  if (a > 0x7f800000) return 0x7e00; // NaN
  if (a >= 0x477ff000) return sign | 0x7c00; // >= 65520 rounds to infinity
  if (a < 0x38800000) {
    // subnormal half (rare): the float32's value times 2^24 (exact), rounded to an integer
    f32Bits[0] = a;
    return sign | roundHalfEven((f32[0] ?? 0) * 2 ** 24);
  }
  // rebias the exponent (127 - 15 = 112), then drop 13 mantissa bits rounding to nearest even: the
  // carry of a round-up moves into the exponent as it should
  return (sign | ((a - 0x38000000 + 0xfff + ((a >>> 13) & 1)) >>> 13)) & 0xffff;
}

/** Packs `src[off, off + count)` (times `scale`) into ceil(count / 2) words; an odd tail's high half is 0. */
export function packHalves(src: ArrayLike<number>, off = 0, count = src.length - off, scale = 1): Uint32Array {
  const out = new Uint32Array(Math.ceil(count / 2));
  const pairs = count >> 1;
  if (scale === 1 && src instanceof Float32Array) {
    // float32 values unscaled (a batch's images, gradients): straight from their bits
    const u = new Uint32Array(src.buffer, src.byteOffset + 4 * off, count);
    for (let w = 0; w < pairs; w++)
      out[w] = f16BitsOfFloat32Bits(u[2 * w] ?? 0) | (f16BitsOfFloat32Bits(u[2 * w + 1] ?? 0) << 16);
    if (count & 1) out[pairs] = f16BitsOfFloat32Bits(u[count - 1] ?? 0);
    return out;
  }
  for (let w = 0; w < pairs; w++) {
    const i = off + 2 * w;
    const lo = f16BitsOfFloat32(Math.fround((src[i] ?? 0) * scale));
    const hi = f16BitsOfFloat32(Math.fround((src[i + 1] ?? 0) * scale));
    out[w] = lo | (hi << 16);
  }
  if (count & 1) out[pairs] = f16BitsOfFloat32(Math.fround((src[off + count - 1] ?? 0) * scale));
  return out;
}

/** Unpacks `count` halves from `words` (times `scale`, rounded to float32) into a new Float32Array. */
export function unpackHalves(words: Uint32Array, count = words.length * 2, scale = 1): Float32Array {
  const out = new Float32Array(count);
  const t = values();
  for (let i = 0; i < count; i++) out[i] = (t[((words[i >> 1] ?? 0) >>> ((i & 1) * 16)) & 0xffff] ?? 0) * scale;
  return out;
}

/** Whether any of the first `count` halves in `words` is infinite or NaN. */
export function halvesOverflow(words: Uint32Array, count = words.length * 2): boolean {
  const pairs = count >> 1;
  // a whole word at a time: either half's exponent bits all ones
  for (let w = 0; w < pairs; w++) {
    const v = words[w] ?? 0;
    if ((v & 0x7c00) === 0x7c00 || (v & 0x7c000000) === 0x7c000000) return true;
  }
  return (count & 1) === 1 && f16NonFinite((words[pairs] ?? 0) & 0xffff);
}

/**
 * Adds packed halves `src` into `dst` from word `off`, each sum rounded once to a half (the sum of
 * two halves is exact in float64, so this is IEEE half addition, as NCCL's fp16 sum does it).
 *
 * The exact sum goes through float32 on its way (stored into a Float32Array, then rounded on its
 * bits), and that second rounding never changes the half: with |a| >= |b|, a sum that float32
 * cannot hold needs ulp(b) <= ulp(a) / 2^13, so |b| <= ulp(a) / 4 - ulp(b); both the sum and its
 * float32 rounding (at most ulp(a) / 2^13 away, never past a) then lie strictly inside a's rounding
 * interval (ulp(a) / 4 below a power of two a, ulp(a) / 2 elsewhere) and round to a.
 */
export function addHalves(dst: Uint32Array, off: number, src: Uint32Array): void {
  const t = values();
  for (let i = 0; i < src.length; i++) {
    const a = dst[off + i] ?? 0;
    const b = src[i] ?? 0;
    f32[0] = (t[a & 0xffff] ?? 0) + (t[b & 0xffff] ?? 0);
    const lo = f16BitsOfFloat32Bits(f32Bits[0] ?? 0);
    f32[0] = (t[a >>> 16] ?? 0) + (t[b >>> 16] ?? 0);
    const hi = f16BitsOfFloat32Bits(f32Bits[0] ?? 0);
    dst[off + i] = (lo | (hi << 16)) >>> 0;
  }
}
