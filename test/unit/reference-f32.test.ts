// The float32 emulation under the optimizer references: nextFloat32 and a single-rounding fma32,
// checked against exact BigInt arithmetic (src/numeric/f32.ts).
import { describe, expect, it } from 'vitest';
import { fma32, nextFloat32 } from '../../src/numeric/f32.ts';
import { rng } from '../helpers/gradcheck.ts';

/** x * 2^k as an exact BigInt (x a float32 whose last bit is >= 2^-k). */
function big(x: number, k: number): bigint {
  return BigInt(x * 2 ** k);
}

/** True when float32 r is the correctly rounded (ties to even) value of a * b + c. */
function isCorrectlyRounded(r: number, a: number, b: number, c: number): boolean {
  const K = 80;
  const exact = big(a, K) * big(b, K) + big(c, K) * 2n ** BigInt(K);
  const at = (x: number) => big(x, K) * 2n ** BigInt(K);
  const dist = (x: number) => {
    const d = at(x) - exact;
    return d < 0n ? -d : d;
  };
  const dr = dist(r);
  for (const o of [nextFloat32(r, 1), nextFloat32(r, -1)]) {
    const d = dist(o);
    if (d < dr) return false;
    if (d === dr && (new Uint32Array(Float32Array.of(r).buffer)[0]! & 1) === 1) return false;
  }
  return true;
}

describe('nextFloat32', () => {
  it('steps one unit in the last place, across zero and the subnormals', () => {
    expect(nextFloat32(1, 1)).toBe(1 + 2 ** -23);
    expect(nextFloat32(1, -1)).toBe(1 - 2 ** -24);
    expect(nextFloat32(-1, 1)).toBe(-1 + 2 ** -24);
    expect(nextFloat32(0, 1)).toBe(2 ** -149);
    expect(nextFloat32(0, -1)).toBe(-(2 ** -149));
    expect(nextFloat32(2 ** -149, -1)).toBe(0);
    expect(nextFloat32(Infinity, 1)).toBe(Infinity);
    expect(Number.isNaN(nextFloat32(NaN, 1))).toBe(true);
  });
});

describe('fma32', () => {
  it('rounds once where fround(a * b + c) rounds twice (a float64 tie)', () => {
    // a * b = 2^-24 + 9376 * 2^-71 exactly: a * b + 1 rounds to the float64 1 + 2^-24, a float32 tie.
    const a = 1 + 2896 * 2 ** -23;
    const b = (1 - 2895 * 2 ** -23) * 2 ** -24;
    expect(Math.fround(a * b + 1)).toBe(1); // double rounding: to the tie, then to even
    expect(fma32(a, b, 1)).toBe(1 + 2 ** -23); // the exact value lies above the tie
    expect(fma32(-a, b, -1)).toBe(-1 - 2 ** -23);
    expect(fma32(a, -b, 1 + 2 ** -22)).toBe(1 + 2 ** -22 - 2 ** -23);
  });

  it('agrees with exact rounding on 20,000 random triples (with cancellation and near-half-ulp sums)', () => {
    const r = rng(7);
    const f = () => Math.fround((r() * 2 - 1) * 2 ** Math.floor(r() * 20 - 10));
    for (let i = 0; i < 20_000; i++) {
      const a = f();
      const b = f();
      // c near -a*b makes cancellation; c a multiple of a*b's rounding makes ties likely.
      const c = i % 3 === 0 ? Math.fround(-a * b) : i % 3 === 1 ? f() : Math.fround(Math.fround(a * b) * 2 ** 24);
      const got = fma32(a, b, c);
      expect(isCorrectlyRounded(got, a, b, c), `fma32(${a}, ${b}, ${c}) = ${got}`).toBe(true);
    }
  });

  it('agrees with exact rounding on 2,000 constructed float64 ties (where fround(a * b + c) errs half the time)', () => {
    const r = rng(11);
    let naiveWrong = 0;
    for (let i = 0; i < 2000; i++) {
      // a * b = 2^-24 * (1 - k^2 2^-46): a * b + c lands on c + 2^-24 in float64, a float32 tie, just above the exact value.
      const k = 1 + Math.floor(r() * 300);
      const c = Math.fround((1 + r()) * (i % 2 ? -1 : 1));
      const a = 1 + k * 2 ** -23;
      const b = (1 - k * 2 ** -23) * 2 ** -24 * Math.sign(c);
      const got = fma32(a, b, c);
      expect(isCorrectlyRounded(got, a, b, c), `fma32(${a}, ${b}, ${c}) = ${got}`).toBe(true);
      if (Math.fround(a * b + c) !== got) naiveWrong++;
    }
    expect(naiveWrong).toBeGreaterThan(500);
  });

  it('passes special values through like fmaf', () => {
    expect(fma32(Infinity, 1, 1)).toBe(Infinity);
    expect(Number.isNaN(fma32(Infinity, 0, 1))).toBe(true);
    expect(Number.isNaN(fma32(NaN, 1, 1))).toBe(true);
    expect(fma32(3.4e38, 10, 0)).toBe(Infinity);
  });
});
