// The linear reference (weight [O, I]): a hand-computed case, the fused ReLU forward and ReLU-mask
// backward, and float64 finite differences on odd sizes.
import { describe, expect, it } from 'vitest';
import {
  linearBackwardInput,
  linearBackwardWeight,
  linearForward,
  type LinearShape,
} from '../../src/reference/linear.ts';
import { reluBackward, reluForward } from '../../src/reference/relu.ts';
import { dot, expectClose, numericGrad, uniform } from '../helpers/gradcheck.ts';

const x = Float32Array.of(1, 2, 3, 4, 5, 6); //  [2, 3]
const w = Float32Array.of(1, 0, -1, 2, 1, 0); // [2, 3]
const b = Float32Array.of(0.5, -10);
const s: LinearShape = { n: 2, i: 3, o: 2 };

describe('linear', () => {
  it('forward: y = x W^T + b, optionally through ReLU', () => {
    expect([...linearForward(x, w, b, s)]).toEqual([-1.5, -6, -1.5, 3]);
    expect([...linearForward(x, w, b, s, true)]).toEqual([0, 0, 0, 3]);
  });

  it('backward input: dx = dy W, and with reluMask dx * (x > 0)', () => {
    const dy = Float32Array.of(1, 2, 3, 4);
    expect([...linearBackwardInput(dy, w, null, s)]).toEqual([5, 2, -1, 11, 4, -3]);
    const r = Float32Array.of(1, 0, 0.5, 4, 5, 0); // a ReLU output
    expect([...linearBackwardInput(dy, w, r, s, true)]).toEqual([5, 0, -1, 11, 4, 0]);
    expect([...reluBackward(linearBackwardInput(dy, w, null, s), r)]).toEqual([5, 0, -1, 11, 4, 0]);
    expect(() => linearBackwardInput(dy, w, null, s, true)).toThrow(TypeError);
  });

  it('backward weight: dw = dy^T x, db = column sums of dy', () => {
    const { dw, db } = linearBackwardWeight(Float32Array.of(1, 2, 3, 4), x, s);
    expect([...dw]).toEqual([13, 17, 21, 18, 24, 30]);
    expect([...db]).toEqual([4, 6]);
  });

  it('rejects mismatched lengths', () => {
    expect(() => linearForward(x, w, Float32Array.of(1), s)).toThrow(/bias has 1 elements, expected 2/);
    expect(() => linearBackwardWeight(Float32Array.of(1), x, s)).toThrow(RangeError);
  });

  it.each([
    { n: 3, i: 7, o: 5 },
    { n: 1, i: 1, o: 1 },
    { n: 5, i: 13, o: 10 },
  ])('backward matches central finite differences in float64 for %j', (sh) => {
    const xs = uniform(sh.n * sh.i, 1);
    const ws = uniform(sh.o * sh.i, 2);
    const bs = uniform(sh.o, 3);
    const r = uniform(sh.n * sh.o, 4);
    const loss = () => dot(r, linearForward(xs, ws, bs, sh, false, new Float64Array(r.length)));
    const tol = { rtol: 1e-7, atol: 1e-9 };
    const h = 1e-3; // L is linear in each variable
    expectClose(
      'dx',
      linearBackwardInput(r, ws, null, sh, false, new Float64Array(xs.length)),
      numericGrad(loss, xs, h),
      tol,
    );
    const g = linearBackwardWeight(r, xs, sh, { dw: new Float64Array(ws.length), db: new Float64Array(sh.o) });
    expectClose('dw', g.dw, numericGrad(loss, ws, h), tol);
    expectClose('db', g.db, numericGrad(loss, bs, h), tol);
  });

  it('through a ReLU: fused forward and masked backward match finite differences', () => {
    const sh = { n: 3, i: 6, o: 5 };
    const z = uniform(sh.n * sh.i, 8).map((v) => (Math.abs(v) < 0.05 ? v + 0.1 : v)); // away from the kink
    const ws = uniform(sh.o * sh.i, 9);
    const bs = uniform(sh.o, 10);
    const r = uniform(sh.n * sh.o, 11);
    const loss = () =>
      dot(r, linearForward(reluForward(z, new Float64Array(z.length)), ws, bs, sh, false, new Float64Array(r.length)));
    const dz = linearBackwardInput(
      r,
      ws,
      reluForward(z, new Float64Array(z.length)),
      sh,
      true,
      new Float64Array(z.length),
    );
    expectClose('dz', dz, numericGrad(loss, z), { rtol: 1e-6, atol: 1e-9 });
  });
});
