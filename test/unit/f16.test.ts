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

  // The bulk paths work on the bits (no logarithm); they must give exactly the scalar codec's bits.
  it('adds every half to a spread of halves exactly as f16Bits(f16Value(a) + f16Value(b))', () => {
    const others = [0, 1, 0x3ff, 0x400, 0x3c00, 0x7bff, 0x7c00, 0x7e00, 0x8000, 0x8001, 0xbc01, 0xfbff, 0xfc00];
    for (let b = 7; b < 0x10000; b += 4099) others.push(b);
    const wrong: string[] = [];
    const dst = new Uint32Array(0x10000);
    for (const b of others) {
      for (let a = 0; a < 0x10000; a++) dst[a] = (a | ((a ^ 0x8000) << 16)) >>> 0; // a and -a
      addHalves(dst, 0, new Uint32Array(0x10000).fill((b | (b << 16)) >>> 0));
      for (let a = 0; a < 0x10000; a++) {
        const lo = f16Bits(f16Value(a) + f16Value(b));
        const hi = f16Bits(f16Value(a ^ 0x8000) + f16Value(b));
        if (dst[a] !== (lo | (hi << 16)) >>> 0) wrong.push(`${a.toString(16)} + ${b.toString(16)}`);
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  it('packs and unpacks every half and every rounding boundary as f16Bits and f16Value do', () => {
    const xs: number[] = [0, -0, NaN, Infinity, -Infinity, 65520, 65519.99, 1e30, 2 ** -25, -(2 ** -25), 3 * 2 ** -25];
    for (let b = 0; b < 0x7c00; b++) {
      const lo = f16Value(b);
      const mid = (lo + f16Value(b + 1)) / 2;
      // the half, the float32 tie between it and the next, and the float32 values just either side
      for (const x of [lo, mid, mid * (1 - 2 ** -23), mid * (1 + 2 ** -23)]) xs.push(x, -x);
    }
    const wrong: number[] = [];
    // a plain array and a Float32Array (read as bits) must pack alike
    for (const src of [xs, Float32Array.from(xs)]) {
      const words = packHalves(src, 0, xs.length, 1);
      const back = unpackHalves(words, xs.length, 0.5);
      for (const [i, x] of xs.entries()) {
        const h = f16Bits(Math.fround(x));
        if (((words[i >> 1] ?? 0) >>> ((i & 1) * 16)) % 0x10000 !== h) wrong.push(x);
        if (!Object.is(back[i], Math.fround(f16Value(h) * 0.5))) wrong.push(x);
      }
      // every non-finite half is found, alone in an odd tail or in either half of a word
      for (let i = 0; i < xs.length; i++) {
        const h = f16Bits(Math.fround(xs[i] ?? 0));
        const one = packHalves([0, 0, 0], 0, 3);
        one[(i % 3) >> 1] = ((h << (16 * ((i % 3) & 1))) | 0) >>> 0;
        if (halvesOverflow(one, 3) !== ((h & 0x7c00) === 0x7c00)) wrong.push(xs[i] ?? 0);
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
});
