// The CPU binary16 codec (src/numeric/f16.ts) against the IEEE definition: every half survives
// the round trip, rounding is to nearest with ties to even, overflow and NaN are where torch's
// `.half()` puts them, and half addition rounds once.
import { describe, expect, it } from 'vitest';
import {
  addHalves,
  f16Bits,
  f16Value,
  f16Round,
  halvesOverflow,
  packHalves,
  unpackHalves,
} from '../../src/numeric/f16.ts';

describe('binary16 codec', () => {
  it('maps every finite and infinite half to itself through its value', () => {
    const wrong: number[] = [];
    for (let b = 0; b < 0x10000; b++) {
      const nan = (b & 0x7c00) === 0x7c00 && (b & 0x3ff) !== 0;
      if (nan ? !Number.isNaN(f16Value(b)) : f16Bits(f16Value(b)) !== b) wrong.push(b);
    }
    expect(wrong).toEqual([]);
  });

  it('knows the landmarks (torch.tensor(x).half() bit patterns)', () => {
    expect(f16Bits(1)).toBe(0x3c00);
    expect(f16Bits(-2)).toBe(0xc000);
    expect(f16Bits(65504)).toBe(0x7bff);
    expect(f16Bits(65519.99)).toBe(0x7bff);
    expect(f16Bits(65520)).toBe(0x7c00); // the tie above the largest half rounds to infinity
    expect(f16Bits(-1e6)).toBe(0xfc00);
    expect(f16Bits(2 ** -24)).toBe(0x0001); // smallest subnormal
    expect(f16Bits(2 ** -25)).toBe(0x0000); // a tie rounds to the even 0
    expect(f16Bits(3 * 2 ** -25)).toBe(0x0002); // 1.5 ulp: tie to even 2
    expect(f16Bits(NaN)).toBe(0x7e00);
    expect(f16Bits(-0)).toBe(0x8000);
  });

  it('rounds ties to even and everything else to nearest', () => {
    // halfway between 1 and 1 + 2^-10 goes down to 1 (even); a hair above goes up
    expect(f16Round(1 + 2 ** -11)).toBe(1);
    expect(f16Round(1 + 2 ** -11 + 2 ** -20)).toBe(1 + 2 ** -10);
    expect(f16Round(1 + 3 * 2 ** -11)).toBe(1 + 2 * 2 ** -10);
    // every value between two neighbours goes to the nearer one
    for (let b = 0x0400; b < 0x7bff; b += 97) {
      const lo = f16Value(b);
      const hi = f16Value(b + 1);
      expect(f16Bits(lo + (hi - lo) * 0.49)).toBe(b);
      expect(f16Bits(lo + (hi - lo) * 0.51)).toBe(b + 1);
      expect(f16Bits((lo + hi) / 2)).toBe(b % 2 === 0 ? b : b + 1);
    }
  });

  it('packs pairs into words (low half first) and unpacks them with a scale', () => {
    const w = packHalves([1, -2, 0.5], 0, 3);
    expect([...w]).toEqual([(0x3c00 | (0xc000 << 16)) >>> 0, 0x3800]);
    expect([...unpackHalves(w, 3, 2)]).toEqual([2, -4, 1]);
    expect(halvesOverflow(w, 3)).toBe(false);
    expect(halvesOverflow(packHalves([1, 70000]), 2)).toBe(true);
    expect(halvesOverflow(packHalves([NaN]), 1)).toBe(true);
    // an odd tail's high half is not looked at
    expect(halvesOverflow(Uint32Array.of(0x7c000000), 1)).toBe(false);
  });

  it('adds halves with one rounding per sum', () => {
    const a = packHalves([1, 60000]);
    addHalves(a, 0, packHalves([2 ** -11, 10000]));
    const [s0 = NaN, s1 = NaN] = unpackHalves(a);
    expect(s0).toBe(1); // 1 + 2^-11 is a tie: even 1
    expect(s1).toBe(Infinity); // 70000 overflows
  });
});
