// The softmax cross-entropy reference: golden values torch 2.11 printed and
// torch 2.11's gradient for them, hand cases, argmax ties, label checks, finite differences.
import { describe, expect, it } from 'vitest';
import { softmaxXentBackward, softmaxXentForward } from '../../src/reference/softmax-xent.ts';
import { expectClose, fromHex, numericGrad, uniform } from '../helpers/gradcheck.ts';

// F.cross_entropy(z, y) for these logits (torch 2.11): 0.5638431906700134 (float32 0x3f105807), and
// z.grad after backward() (test/helpers/torch-goldens.py, "xent").
const z = Float32Array.of(2, 1, 0.1, 0.5, 2.5, -1, -0.3, 0.2, 0.9, 1, 1, 1);
const y = Int32Array.of(0, 1, 2, 1);
const torchGrad = fromHex([
  'bdae9766',
  '3d78405a',
  '3cc9dceb',
  '3cedcd75',
  'bd116e88',
  '3bd43e63',
  '3d2b8ec2',
  '3d8d6ce6',
  'bde33448',
  '3daaaaaa',
  'be2aaaab',
  '3daaaaaa',
]);

describe('softmax cross-entropy', () => {
  it("matches the golden mean loss of section 7.3 (to float32) and torch's gradient", () => {
    const r = softmaxXentForward(z, y, { n: 4, c: 3 });
    expect(Math.fround(r.loss)).toBe(0.5638431906700134);
    expect(r.lossSum).toBeCloseTo(4 * r.loss, 15);
    expect(r.correct).toBe(3); // row 3 is a three-way tie: argmax is class 0, the label is 1
    const g = softmaxXentBackward(z, y, { n: 4, c: 3 });
    expectClose('dz vs torch', g, torchGrad, { rtol: 4 * 2 ** -23, atol: 0 }); // torch's float32 exp/sum err by ~2 ulp
  });

  it('uniform logits: loss ln(C), gradient (1/C - onehot) * scale, rows summing to 0', () => {
    const c = 7;
    const zs = new Float32Array(2 * c).fill(3.25);
    const ys = Int32Array.of(0, 6);
    const r = softmaxXentForward(zs, ys, { n: 2, c });
    expect(r.loss).toBeCloseTo(Math.log(c), 14);
    expect(r.correct).toBe(1); // ties go to the first class
    const g = softmaxXentBackward(zs, ys, { n: 2, c }, 0.25, new Float64Array(2 * c));
    expect(g[0]).toBeCloseTo((1 / c - 1) * 0.25, 15);
    expect(g[13]).toBeCloseTo((1 / c - 1) * 0.25, 15);
    expect(g[1]).toBeCloseTo(0.25 / c, 15);
    expect(g.subarray(0, c).reduce((a, b) => a + b, 0)).toBeCloseTo(0, 15);
  });

  it('is stable for huge logits (log-sum-exp with the row maximum)', () => {
    const r = softmaxXentForward(Float32Array.of(1e30, 0, -1e30), Int32Array.of(1), { n: 1, c: 3 });
    expect(r.loss).toBe(Math.fround(1e30));
    const g = softmaxXentBackward(Float32Array.of(1e30, 0, -1e30), Int32Array.of(0), { n: 1, c: 3 });
    expect([...g]).toEqual([0, 0, 0]);
  });

  it('a NaN logit makes the loss NaN and counts as the argmax', () => {
    const r = softmaxXentForward(Float32Array.of(1, NaN, 0, 5, 1, 0), Int32Array.of(1, 0), { n: 2, c: 3 });
    expect(Number.isNaN(r.loss)).toBe(true);
    expect(r.correct).toBe(2);
  });

  it('rejects labels outside 0..C-1 (ignore_index -100 is not supported) and bad lengths', () => {
    for (const bad of [-1, 3, -100]) {
      expect(() => softmaxXentForward(z, Int32Array.of(0, 1, bad, 1), { n: 4, c: 3 })).toThrow(/label 2 is/);
    }
    expect(() => softmaxXentBackward(z, Int32Array.of(0, 1, 2), { n: 4, c: 3 })).toThrow(/labels has 3 elements/);
    expect(() => softmaxXentForward(z.subarray(1), y, { n: 4, c: 3 })).toThrow(/logits has 11 elements/);
  });

  it.each([
    { n: 3, c: 10 },
    { n: 5, c: 3 },
    { n: 1, c: 1 },
  ])('backward with scale 1/N is the gradient of the mean loss (finite differences, %j)', (s) => {
    const zs = uniform(s.n * s.c, 3, 4);
    const ys = Int32Array.from({ length: s.n }, (_, i) => (i * 7) % s.c);
    const g = softmaxXentBackward(zs, ys, s, 1 / s.n, new Float64Array(zs.length));
    expectClose(
      'dz',
      g,
      numericGrad(() => softmaxXentForward(zs, ys, s).loss, zs, 1e-5),
      { rtol: 1e-7, atol: 1e-10 },
    );
  });
});
