// compareTensors and formatComparison (used by `webddp parity`): the closeness rule, NaN and
// infinities, the worst element, relative errors at zero, and length/shape/tolerance errors.
import { describe, expect, it } from 'vitest';
import { compareTensors, formatComparison } from '../../src/reference/compare.ts';

const tol = { rtol: 1e-4, atol: 1e-5 };

describe('compareTensors', () => {
  it('applies |a - e| <= atol + rtol * |e| with the expected value on the right', () => {
    const c = compareTensors([1, 100.005, 0], [1 + 1e-5, 100, 2e-6], tol);
    expect(c).toMatchObject({ ok: true, mismatches: 0, count: 3 });
    expect(c.maxAbs).toBeCloseTo(0.005, 10);
    expect(c.maxRel).toBeCloseTo(1, 10); // |0 - 2e-6| / 2e-6, within atol
    expect(c.worstIndex).toBe(1); // uses half of its tolerance, the others less
    expect(compareTensors([100.03], [100], tol).ok).toBe(false);
    expect(compareTensors([2e-5], [0], tol)).toMatchObject({ ok: false, mismatches: 1, maxRel: 0 }); // no relative error at 0
  });

  it('exactly equal tensors report zeros and worstIndex -1', () => {
    const a = Float32Array.of(1, -0, 3);
    expect(compareTensors(a, Float32Array.of(1, 0, 3), { rtol: 0, atol: 0 })).toMatchObject({
      ok: true,
      maxAbs: 0,
      maxRel: 0,
      worstIndex: -1,
      mismatches: 0,
      count: 3,
    });
  });

  it('NaN never matches, not even NaN, and ranks as the worst element', () => {
    const c = compareTensors([NaN, 5, 1], [NaN, 6, 1], tol);
    expect(c.ok).toBe(false);
    expect(c.mismatches).toBe(2);
    expect(c.worstIndex).toBe(0);
    expect(Number.isNaN(c.maxAbs)).toBe(true);
    expect(compareTensors([1], [NaN], tol).ok).toBe(false);
    expect(compareTensors([NaN], [1], tol).ok).toBe(false);
  });

  it('an infinity matches only the same infinity', () => {
    expect(compareTensors([Infinity, -Infinity], [Infinity, -Infinity], tol).ok).toBe(true);
    const c = compareTensors([Infinity, 1, 2], [-Infinity, 1, 3], tol);
    expect(c).toMatchObject({ ok: false, mismatches: 2, worstIndex: 0, maxAbs: Infinity });
    expect(compareTensors([1e38], [Infinity], tol).ok).toBe(false);
    expect(compareTensors([Infinity], [1e38], tol).ok).toBe(false);
    expect(compareTensors([-Infinity], [Infinity], { rtol: 1, atol: 1 })).toMatchObject({
      ok: false,
      maxRel: Infinity,
    });
  });

  it('a zero tolerance demands equality; the largest gap is the worst', () => {
    const c = compareTensors([1, 2, 3], [1, 2.5, 3.1], { rtol: 0, atol: 0 });
    expect(c).toMatchObject({ ok: false, mismatches: 2, worstIndex: 1, worstActual: 2, worstExpected: 2.5 });
  });

  it('length and shape mismatches are errors, not failed comparisons', () => {
    expect(() => compareTensors([1, 2], [1, 2, 3], tol)).toThrow(/length mismatch: actual has 2 elements, expected 3/);
    const d = Float32Array.of(1, 2, 3, 4, 5, 6);
    expect(() => compareTensors({ data: d, shape: [2, 3] }, { data: d, shape: [3, 2] }, tol)).toThrow(
      /shape mismatch: actual \[2, 3\] vs expected \[3, 2\]/,
    );
    expect(compareTensors({ data: d, shape: [2, 3] }, d, tol).ok).toBe(true);
    expect(() => compareTensors(d, d, { rtol: -1, atol: 0 })).toThrow(RangeError);
    expect(() => compareTensors(d, d, { rtol: 0, atol: NaN })).toThrow(RangeError);
  });

  it('two empty tensors compare equal', () => {
    expect(compareTensors([], new Float32Array(0), tol)).toMatchObject({ ok: true, count: 0, worstIndex: -1 });
  });
});

describe('formatComparison', () => {
  it('prints one line with the verdict, errors, mismatches, the worst element and the tolerance', () => {
    const line = formatComparison('grad.fc1.weight', compareTensors([1, 2.5], [1, 2], tol));
    expect(line).toBe(
      'FAIL grad.fc1.weight  maxAbs 0.5  maxRel 0.25  mismatches 1/2  worst [1] 2.5 vs 2  (rtol 0.0001, atol 0.00001)',
    );
    expect(line).not.toContain('\n');
    expect(formatComparison('x', compareTensors([1], [1], tol))).toMatch(/^PASS x .* all equal/);
    expect(formatComparison('n', compareTensors([NaN], [1], tol))).toContain('maxAbs NaN');
  });

  it('shows float32 neighbours as different numbers', () => {
    const a = Math.fround(0.1);
    const b = Math.fround(a + 2 ** -27);
    expect(formatComparison('v', compareTensors([a], [b], { rtol: 0, atol: 0 }))).toContain(
      'worst [0] 0.100000001 vs 0.100000009',
    );
  });
});
