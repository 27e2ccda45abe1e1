// bfloat16 on the CPU: the upper 16 bits of a float32, rounded to nearest even on the store (what
// torch's `.bfloat16()` does: c10's round_to_nearest_even, NaN -> the quiet NaN 0x7fc0), widened
// exactly on the load (the bits shifted back up), and two per 32-bit word in the order the fp16
// packing uses (element 2i in the low 16 bits, 2i+1 in the high). WGSL has no bfloat16, so the
// kernels pack and unpack these bits themselves; this is their oracle and the arithmetic of the
// bf16 ring collectives.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The bfloat16 bits nearest to `x` (first rounded to float32), ties to even; NaN -> 0x7fc0. */
export function bf16Bits(x: number): number {
  f32[0] = x;
  const b = u32[0] ?? 0;
  if ((b & 0x7f800000) === 0x7f800000 && (b & 0x007fffff) !== 0) return 0x7fc0;
  // adding 0x7fff (+1 when the kept part is odd) carries into bit 16 exactly when rounding up;
  // a carry out of the largest finite value gives infinity, as it should
  return ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16) & 0xffff;
}

/** The value of bfloat16 bits (exact: a float32 whose low 16 bits are 0). */
export function bf16Value(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0] ?? NaN;
}

/** `x` rounded to the nearest bfloat16 (as torch's `x.bfloat16().float()`). */
export function bf16Round(x: number): number {
  return bf16Value(bf16Bits(x));
}

/** Packs `src[off, off + count)` (times `scale`, rounded to float32 first) into ceil(count / 2) words. */
export function packBf16(src: ArrayLike<number>, off = 0, count = src.length - off, scale = 1): Uint32Array {
  const out = new Uint32Array(Math.ceil(count / 2));
  for (let i = 0; i < count; i++) {
    const h = bf16Bits(Math.fround((src[off + i] ?? 0) * scale));
    out[i >> 1] = (out[i >> 1] ?? 0) | (h << ((i & 1) * 16));
  }
  return out;
}

/** Unpacks `count` bfloat16 values from `words` (times `scale`, rounded to float32). */
export function unpackBf16(words: Uint32Array, count = words.length * 2, scale = 1): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = bf16Value((words[i >> 1] ?? 0) >>> ((i & 1) * 16)) * scale;
  return out;
}

/**
 * Adds packed bfloat16 `src` into `dst` from word `off`, each sum rounded once to bfloat16 (the
 * float32 sum of two bfloat16 values rounds to bfloat16 as the exact sum would: 24 >= 2 x 8 + 2
 * bits), as NCCL's bf16 sum does it.
 */
export function addBf16(dst: Uint32Array, off: number, src: Uint32Array): void {
  for (let i = 0; i < src.length; i++) {
    const a = dst[off + i] ?? 0;
    const b = src[i] ?? 0;
    const lo = bf16Bits(bf16Value(a & 0xffff) + bf16Value(b & 0xffff));
    const hi = bf16Bits(bf16Value(a >>> 16) + bf16Value(b >>> 16));
    dst[off + i] = (lo | (hi << 16)) >>> 0;
  }
}
