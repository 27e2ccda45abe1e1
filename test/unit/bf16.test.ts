// The CPU bfloat16 codec (src/numeric/bf16.ts) against its definition, the upper 16 bits of a
// float32 rounded to nearest even: every bfloat16 survives the round trip, ties go to even,
// overflow rounds to infinity, NaN is the quiet 0x7fc0 (torch's), subnormals are kept, and a
// bfloat16 sum rounds once.
import { describe, expect, it } from 'vitest';
import { addBf16, bf16Bits, bf16Round, bf16Value, packBf16, unpackBf16 } from '../../src/numeric/bf16.ts';

describe('bfloat16 codec', () => {
  it('maps every finite and infinite bfloat16 to itself through its value', () => {
    const wrong: number[] = [];
    for (let b = 0; b < 0x10000; b++) {
      const nan = (b & 0x7f80) === 0x7f80 && (b & 0x7f) !== 0;
      if (nan ? !Number.isNaN(bf16Value(b)) : bf16Bits(bf16Value(b)) !== b) wrong.push(b);
    }
    expect(wrong).toEqual([]);
  });

  it('knows the landmarks', () => {
    expect(bf16Bits(1)).toBe(0x3f80);
    expect(bf16Bits(-2)).toBe(0xc000);
    expect(bf16Bits(3.3895313892515355e38)).toBe(0x7f7f); // the largest bfloat16
    expect(bf16Bits(3.4028234663852886e38)).toBe(0x7f80); // float32's largest rounds up to infinity
    expect(bf16Bits(Infinity)).toBe(0x7f80);
    expect(bf16Bits(-Infinity)).toBe(0xff80);
    expect(bf16Bits(NaN)).toBe(0x7fc0);
    expect(bf16Bits(-0)).toBe(0x8000);
    expect(bf16Bits(2 ** -133)).toBe(0x0001); // smallest subnormal
    expect(bf16Bits(2 ** -134)).toBe(0x0000); // a tie rounds to the even 0
    expect(bf16Bits(3 * 2 ** -134)).toBe(0x0002); // 1.5 ulp: tie to even 2
  });

  it('rounds ties to even and everything else to nearest', () => {
    expect(bf16Round(1 + 2 ** -8)).toBe(1); // halfway between 1 and 1 + 2^-7: the even 1
    expect(bf16Round(1 + 3 * 2 ** -8)).toBe(1 + 2 * 2 ** -7); // halfway up: the even 1 + 2^-6
    expect(bf16Round(1 + 2 ** -8 + 2 ** -20)).toBe(1 + 2 ** -7);
    for (let b = 0x0080; b < 0x7f7f; b += 97) {
      const lo = bf16Value(b);
      const hi = bf16Value(b + 1);
      expect(bf16Bits(lo + (hi - lo) * 0.49)).toBe(b);
      expect(bf16Bits(lo + (hi - lo) * 0.51)).toBe(b + 1);
      expect(bf16Bits((lo + hi) / 2)).toBe(b % 2 === 0 ? b : b + 1);
    }
  });

  it('packs two per word (element 2i low) with a scale, and unpacks exactly', () => {
    const x = Float32Array.of(1, -2, 0.1, 3e38, 5);
    const w = packBf16(x, 0, 5, 2);
    expect(w.length).toBe(3);
    expect(w[0]).toBe((0x4000 | (0xc080 << 16)) >>> 0); // 2, -4
    expect(w[2]).toBe(0x4120); // 10, and an empty high half
    expect(Array.from(unpackBf16(w, 5))).toEqual([2, -4, bf16Round(0.2), Infinity, 10]);
    expect(Array.from(unpackBf16(w, 2, 0.5))).toEqual([1, -2]);
  });

  it('adds with one rounding per sum', () => {
    const dst = packBf16([1, 3e38, 1e-3, -1]);
    addBf16(dst, 0, packBf16([2 ** -8, 3e38, 1, 1]));
    expect(Array.from(unpackBf16(dst))).toEqual([1, Infinity, bf16Round(bf16Round(1e-3) + 1), 0]);
  });
});
