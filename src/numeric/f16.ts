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

/** Packs `src[off, off + count)` (times `scale`) into ceil(count / 2) words; an odd tail's high half is 0. */
export function packHalves(src: ArrayLike<number>, off = 0, count = src.length - off, scale = 1): Uint32Array {
  const out = new Uint32Array(Math.ceil(count / 2));
  for (let i = 0; i < count; i++) {
    const h = f16Bits(Math.fround((src[off + i] ?? 0) * scale));
    out[i >> 1] = (out[i >> 1] ?? 0) | (h << ((i & 1) * 16));
  }
  return out;
}

/** Unpacks `count` halves from `words` (times `scale`, rounded to float32) into a new Float32Array. */
export function unpackHalves(words: Uint32Array, count = words.length * 2, scale = 1): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = f16Value(((words[i >> 1] ?? 0) >>> ((i & 1) * 16)) & 0xffff) * scale;
  return out;
}

/** Whether any of the first `count` halves in `words` is infinite or NaN. */
export function halvesOverflow(words: Uint32Array, count = words.length * 2): boolean {
  for (let i = 0; i < count; i++) if (f16NonFinite(((words[i >> 1] ?? 0) >>> ((i & 1) * 16)) & 0xffff)) return true;
  return false;
}

/**
 * Adds packed halves `src` into `dst` from word `off`, each sum rounded once to a half (the sum of
 * two halves is exact in float64, so this is IEEE half addition, as NCCL's fp16 sum does it).
 */
export function addHalves(dst: Uint32Array, off: number, src: Uint32Array): void {
  for (let i = 0; i < src.length; i++) {
    const a = dst[off + i] ?? 0;
    const b = src[i] ?? 0;
    const lo = f16Bits(f16Value(a & 0xffff) + f16Value(b & 0xffff));
    const hi = f16Bits(f16Value(a >>> 16) + f16Value(b >>> 16));
    dst[off + i] = (lo | (hi << 16)) >>> 0;
  }
}
