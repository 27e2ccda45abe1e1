// The MaxPool2d(2) and ReLU references: first-maximum ties, floor mode on odd sizes, the fused
// ReLU mask, NaN propagation as PyTorch's CPU kernel, and float64 finite differences.
import { describe, expect, it } from 'vitest';
import { maxPool2dBackward, maxPool2dForward, type MaxPool2dShape } from '../../src/reference/maxpool2d.ts';
import { reluBackward, reluForward } from '../../src/reference/relu.ts';
import { distinct, dot, expectClose, numericGrad, uniform } from '../helpers/gradcheck.ts';

// One 4x4 plane; windows: [1 3; 4 2] -> 4, [2 0; 5 5] -> 5 (tie: first), [0 0; 0 0] -> 0, [-1 -2; -3 -1] -> -1 (tie).
const x = Float32Array.of(1, 3, 2, 0, 4, 2, 5, 5, 0, 0, -1, -2, 0, 0, -3, -1);
const s4: MaxPool2dShape = { nc: 1, h: 4, w: 4 };
const dy = Float32Array.of(10, 20, 30, 40);

describe('maxpool2d', () => {
  it('forward takes each 2x2 window maximum', () => {
    expect([...maxPool2dForward(x, s4)]).toEqual([4, 5, 0, -1]);
  });

  it('backward routes dy to the first maximum in row-major order', () => {
    const dx = maxPool2dBackward(x, dy, s4);
    expect([...dx]).toEqual([0, 0, 0, 0, 10, 0, 20, 0, 30, 0, 40, 0, 0, 0, 0, 0]);
  });

  it('backward with reluMask drops windows whose maximum is not > 0 (the ReLU backward, fused)', () => {
    const dx = maxPool2dBackward(x, dy, s4, true);
    expect([...dx]).toEqual([0, 0, 0, 0, 10, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    // Equivalent unfused: relu first, then pool backward, then the ReLU mask of the pool input.
    const r = reluForward(x);
    expect([...reluBackward(maxPool2dBackward(r, dy, s4), r)]).toEqual([...dx]);
  });

  it('floor mode: a 5x5 plane pools to 2x2 and the last row and column get no gradient', () => {
    const v = Float32Array.from({ length: 25 }, (_, i) => i); // increasing: each window's max is its bottom-right
    const s5 = { nc: 1, h: 5, w: 5 };
    expect([...maxPool2dForward(v, s5)]).toEqual([6, 8, 16, 18]);
    const dx = maxPool2dBackward(v, Float32Array.of(1, 2, 3, 4), s5);
    const want = new Float32Array(25);
    [
      [6, 1],
      [8, 2],
      [16, 3],
      [18, 4],
    ].forEach(([i, g]) => {
      want[i!] = g!;
    });
    expect([...dx]).toEqual([...want]);
  });

  it('a NaN wins its window and takes the gradient, as in PyTorch (the last NaN of the window)', () => {
    const v = Float32Array.of(1, NaN, NaN, 3);
    const s = { nc: 1, h: 2, w: 2 };
    expect(Number.isNaN(maxPool2dForward(v, s)[0]!)).toBe(true);
    expect([...maxPool2dBackward(v, Float32Array.of(7), s)]).toEqual([0, 0, 7, 0]);
  });

  it('keeps planes apart', () => {
    const v = Float32Array.from([...x, ...x.map((a) => -a)]);
    expect([...maxPool2dForward(v, { nc: 2, h: 4, w: 4 })].map((a) => a + 0)).toEqual([4, 5, 0, -1, -1, 0, 0, 3]);
  });

  it('rejects planes smaller than the window and mismatched lengths', () => {
    expect(() => maxPool2dForward(Float32Array.of(1, 2), { nc: 1, h: 1, w: 2 })).toThrow(RangeError);
    expect(() => maxPool2dBackward(x, Float32Array.of(1), s4)).toThrow(/dy has 1 elements, expected 4/);
  });

  it.each([
    { nc: 3 * 5, h: 5, w: 5 },
    { nc: 2 * 3, h: 6, w: 7 },
  ])('backward matches central finite differences in float64 for %j (distinct inputs, no ties)', (s) => {
    const v = distinct(s.nc * s.h * s.w, 3, 2); // no ties and no zeros, so a step h never changes an argmax or a mask
    const r = uniform(s.nc * Math.floor(s.h / 2) * Math.floor(s.w / 2), 4);
    const loss = () => dot(r, maxPool2dForward(v, s, new Float64Array(r.length)));
    expectClose('dx', maxPool2dBackward(v, r, s, false, new Float64Array(v.length)), numericGrad(loss, v, 1e-6), {
      rtol: 1e-7,
      atol: 1e-9,
    });
    // With the ReLU mask: L = sum(r * pool(relu(z))).
    const lossRelu = () =>
      dot(r, maxPool2dForward(reluForward(v, new Float64Array(v.length)), s, new Float64Array(r.length)));
    const dz = maxPool2dBackward(reluForward(v, new Float64Array(v.length)), r, s, true, new Float64Array(v.length));
    expectClose('dz', dz, numericGrad(lossRelu, v, 1e-6), { rtol: 1e-7, atol: 1e-9 });
  });
});

describe('relu', () => {
  it('forward clamps at 0 and keeps NaN; backward masks by the output', () => {
    const y = reluForward(Float32Array.of(-1, 0, 2, NaN, -0, 3e-39));
    expect([...y.subarray(0, 3)]).toEqual([0, 0, 2]);
    expect(Number.isNaN(y[3]!)).toBe(true);
    expect(Object.is(y[4], 0)).toBe(true);
    expect(y[5]).toBeGreaterThan(0);
    expect([...reluBackward(Float32Array.of(1, 2, 3, 4, 5, 6), y)]).toEqual([0, 0, 3, 0, 0, 6]);
  });

  it('backward matches central finite differences away from the kink', () => {
    const v = distinct(31, 5, 1); // no value within 1/62 of 0
    const r = uniform(31, 6);
    const loss = () => dot(r, reluForward(v, new Float64Array(31)));
    expectClose(
      'dx',
      reluBackward(r, reluForward(v, new Float64Array(31)), new Float64Array(31)),
      numericGrad(loss, v),
      { rtol: 1e-7, atol: 1e-9 },
    );
  });
});
