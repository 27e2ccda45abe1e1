// The conv2d reference (3x3, stride 1, padding 1, NCHW): hand-computed cases, the fused ReLU, and
// central finite differences in float64 for both backward passes, on odd shapes.
import { describe, expect, it } from 'vitest';
import {
  conv2dBackwardInput,
  conv2dBackwardWeight,
  conv2dForward,
  type Conv2dShape,
} from '../../src/reference/conv2d.ts';
import { reluForward } from '../../src/reference/relu.ts';
import { dot, expectClose, numericGrad, uniform } from '../helpers/gradcheck.ts';

const img = Float32Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9); // [1, 1, 3, 3]
const one: Conv2dShape = { n: 1, ci: 1, co: 1, h: 3, w: 3 };

describe('conv2d forward', () => {
  it('a ones kernel sums each 3x3 neighbourhood, zero padded, plus the bias', () => {
    const y = conv2dForward(img, new Float32Array(9).fill(1), Float32Array.of(0.5), one);
    expect([...y]).toEqual([12, 21, 16, 27, 45, 33, 24, 39, 28].map((v) => v + 0.5));
  });

  it('is a cross-correlation (no kernel flip): tap (kh 0, kw 2) reads x[oh-1, ow+1]', () => {
    const w = new Float32Array(9);
    w[2] = 1;
    expect([...conv2dForward(img, w, Float32Array.of(0), one)]).toEqual([0, 0, 0, 2, 3, 0, 5, 6, 0]);
  });

  it('sums over input channels and keeps output channels apart', () => {
    const x = Float32Array.from([...img, ...img.map((v) => 10 * v)]); // [1, 2, 3, 3]
    const w = new Float32Array(2 * 2 * 9); // [2, 2, 3, 3]: centre taps only
    w[4] = 1; //       co 0 <- ci 0
    w[9 + 4] = 1; //   co 0 <- ci 1
    w[18 + 4] = -1; // co 1 <- ci 0
    const y = conv2dForward(x, w, Float32Array.of(0, 1), { n: 1, ci: 2, co: 2, h: 3, w: 3 });
    expect([...y.subarray(0, 9)]).toEqual([...img].map((v) => 11 * v));
    expect([...y.subarray(9)]).toEqual([...img].map((v) => 1 - v));
  });

  it('the fused ReLU equals relu(conv(x))', () => {
    const s: Conv2dShape = { n: 3, ci: 3, co: 5, h: 5, w: 5 };
    const x = Float32Array.from(uniform(3 * 3 * 25, 1));
    const w = Float32Array.from(uniform(5 * 3 * 9, 2));
    const b = Float32Array.from(uniform(5, 3));
    expect([...conv2dForward(x, w, b, s, true)]).toEqual([...reluForward(conv2dForward(x, w, b, s))]);
  });

  it('rejects arrays that do not match the shape', () => {
    expect(() => conv2dForward(img, new Float32Array(8), Float32Array.of(0), one)).toThrow(
      /weight has 8 elements, expected 9/,
    );
    expect(() => conv2dForward(img, new Float32Array(9), Float32Array.of(0), { ...one, h: 0 })).toThrow(RangeError);
    expect(() => conv2dForward(img, new Float32Array(9), Float32Array.of(0), one, false, new Float32Array(3))).toThrow(
      /conv2d y/,
    );
  });
});

describe('conv2d backward', () => {
  it('hand case: ones everywhere count the valid taps', () => {
    const counts = [4, 6, 4, 6, 9, 6, 4, 6, 4];
    const ones = new Float32Array(9).fill(1);
    expect([...conv2dBackwardInput(ones, ones, one)]).toEqual(counts);
    const { dw, db } = conv2dBackwardWeight(ones, ones, one);
    expect([...dw]).toEqual(counts);
    expect([...db]).toEqual([9]);
  });

  const shapes: Conv2dShape[] = [
    { n: 3, ci: 3, co: 5, h: 5, w: 5 }, // batch 3, channels not multiples of 4, odd image
    { n: 2, ci: 5, co: 3, h: 4, w: 7 },
    { n: 1, ci: 2, co: 1, h: 1, w: 2 }, // a single row: only the middle kernel row ever hits
  ];
  it.each(shapes)('matches central finite differences in float64 for %j', (s) => {
    const x = uniform(s.n * s.ci * s.h * s.w, 10);
    const w = uniform(s.co * s.ci * 9, 11);
    const b = uniform(s.co, 12);
    const r = uniform(s.n * s.co * s.h * s.w, 13); // L = sum(r * conv(x, w, b)), so dL/dy = r
    const loss = () => dot(r, conv2dForward(x, w, b, s, false, new Float64Array(r.length)));
    // L is linear in each variable, so central differences are exact up to rounding: a large h keeps that small.
    const h = 1e-3;
    const tol = { rtol: 1e-7, atol: 1e-9 };
    expectClose('dx', conv2dBackwardInput(r, w, s, new Float64Array(x.length)), numericGrad(loss, x, h), tol);
    const g = conv2dBackwardWeight(r, x, s, { dw: new Float64Array(w.length), db: new Float64Array(b.length) });
    expectClose('dw', g.dw, numericGrad(loss, w, h), tol);
    expectClose('db', g.db, numericGrad(loss, b, h), tol);
  });

  it('float32 outputs are the float64 results rounded once', () => {
    const s = shapes[0]!;
    const x = uniform(s.n * s.ci * s.h * s.w, 20);
    const dy = uniform(s.n * s.co * s.h * s.w, 21);
    const w = uniform(s.co * s.ci * 9, 22);
    expect([...conv2dBackwardInput(dy, w, s)]).toEqual([
      ...Float32Array.from(conv2dBackwardInput(dy, w, s, new Float64Array(x.length))),
    ]);
    expect([...conv2dBackwardWeight(dy, x, s).dw]).toEqual([
      ...Float32Array.from(
        conv2dBackwardWeight(dy, x, s, { dw: new Float64Array(w.length), db: new Float64Array(5) }).dw,
      ),
    ]);
  });
});
