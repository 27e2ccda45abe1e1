// SGD, Adam/AdamW and clip_grad_norm_ references: hand-computed steps, the golden values of
// values torch 2.11 printed, torch 2.11's clipping values, and argument checks.
import { describe, expect, it } from 'vitest';
import { adamScalars } from '../../src/numeric/adam-scalars.ts';
import { adamInit, adamStep } from '../../src/reference/adam.ts';
import { clipCoefficient } from '../../src/numeric/clip-coefficient.ts';
import { clipGradNorm, gradNorm } from '../../src/reference/clip.ts';
import { sgdInit, sgdStep } from '../../src/reference/sgd.ts';
import { expectClose, fromHex, hex } from '../helpers/gradcheck.ts';

const f = Math.fround;

describe('sgd', () => {
  it('plain: p - lr * g; with momentum the first buffer is g, then momentum * buf + g', () => {
    const p = Float32Array.of(1, -2);
    sgdStep(p, Float32Array.of(0.5, 0.25), sgdInit(), { lr: 0.5 });
    expect([...p]).toEqual([0.75, -2.125]);
    const q = Float32Array.of(1, -2);
    const s = sgdInit();
    sgdStep(q, Float32Array.of(0.5, 0.25), s, { lr: 0.5, momentum: 0.5 });
    expect([...s.momentumBuffer!]).toEqual([0.5, 0.25]);
    sgdStep(q, Float32Array.of(1, 1), s, { lr: 0.5, momentum: 0.5 });
    expect([...s.momentumBuffer!]).toEqual([1.25, 1.125]);
    expect([...q]).toEqual([0.75 - 0.625, -2.125 - 0.5625]);
  });

  it('checks its arguments like torch.optim.SGD', () => {
    const p = new Float32Array(2);
    expect(() => sgdStep(p, new Float32Array(3), sgdInit(), { lr: 0.1 })).toThrow(/grad has 3 elements/);
    expect(() => sgdStep(p, p, sgdInit(), { lr: 0.1, nesterov: true })).toThrow(/Nesterov/);
    expect(() => sgdStep(p, p, sgdInit(), { lr: -1 })).toThrow(RangeError);
  });
});

describe('adam', () => {
  it('the first step moves each parameter by about lr against the sign of its gradient', () => {
    const p = Float32Array.of(1, 1, 1, 1);
    const s = adamInit(4);
    adamStep(p, Float32Array.of(0.5, -3, 1e-3, 0), s, { lr: 0.01 });
    expect(s.step).toBe(1);
    expect(p[0]).toBeCloseTo(0.99, 6);
    expect(p[1]).toBeCloseTo(1.01, 6);
    expect(p[2]).toBeCloseTo(0.99, 5); // |g| = 1e-3 >> eps
    expect(p[3]).toBe(1); // zero gradient, zero moments: no step
  });

  it('computes the step scalars in float64 and rounds them to float32, as PyTorch', () => {
    const k = adamScalars(2, { lr: 1e-3, weightDecay: 0.01 });
    expect(k.stepSize).toBe(f(1e-3 / (1 - 0.9 ** 2)));
    expect(k.bc2Sqrt).toBe(f(Math.sqrt(1 - 0.999 ** 2)));
    expect(k.decay).toBe(f(1 - 1e-5));
    expect(k.oneMinusBeta1).toBe(f(0.1));
    expect(() => adamScalars(1, { lr: 1e-3, beta1: 1 })).toThrow(RangeError);
  });

  // 3 steps on p0 with these gradients, as torch 2.11 (CPU) printed them.
  const p0 = [1, -2, 0.5, 3, 1e-3, -7.25];
  const grads = [
    [0.1, -0.2, 0.3, -0.4, 1e-5, 2.5],
    [0.05, 0.1, -0.3, 0.2, -1e-5, 2],
    [-0.3, 0, 0.1, 0.7, 0, -1],
  ];
  it.each([
    ['Adam default', { lr: 1e-3 }, '3f7f9821 bfffcfc2 3eff75cc 40400dbd 38c5940e c0e814b2'],
    [
      'AdamW default',
      { lr: 1e-3, weightDecay: 0.01, decoupled: true },
      '3f7f9629 bfffcdca 3eff73d4 40400c43 38c58e64 c0e812ea',
    ],
  ])('%s matches the section 9 golden bit for bit', (_, opts, want) => {
    const p = Float32Array.from(p0);
    const s = adamInit(6);
    for (const g of grads) adamStep(p, Float32Array.from(g), s, opts);
    expect(hex(p).join(' ')).toBe(want);
  });

  it('checks its state against the parameters', () => {
    expect(() => adamStep(new Float32Array(3), new Float32Array(3), adamInit(2), { lr: 1 })).toThrow(
      /exp_avg has 2 elements/,
    );
  });
});

describe('clip_grad_norm_', () => {
  it('section 6.3 golden: total 13.20274543762207 (0x41533e72), max_norm 1 scales every grad (torch 2.11 bits)', () => {
    const a = Float32Array.of(3, 4, 0.5);
    const b = Float32Array.of(1, -2, 0.25, 12);
    const r = clipGradNorm([a, b], 1);
    expect(r.totalNorm).toBe(13.20274543762207);
    expect(hex([r.totalNorm])).toEqual(['41533e72']);
    expect(hex(a)).toEqual(['3e68adca', '3e9b1e87', '3d1b1e87']);
    expect(hex(b)).toEqual(['3d9b1e87', 'be1b1e87', '3c9b1e87', '3f68adca']);
    expect(a[0]).toBeCloseTo(0.22722, 4);
    expect(r.clipCoef).toBe(clipCoefficient(r.totalNorm, 1));
    expect([...r.norms]).toEqual([f(Math.sqrt(25.25)), f(Math.sqrt(149.0625))]);
  });

  // Three tensors of 37, 1000 and 5 elements ((i * 29 % 89 - 44) / 32), max_norm 0.5: torch 2.11's
  // total norm and the first clipped values of each tensor (test/helpers/torch-goldens.py, "clip").
  // The per-tensor norms agree bit for bit; torch then sums the three squared norms in float32 (one
  // fma each), this reference in float64, so the 2-norm total may differ by one float32 ulp.
  const tensors = () =>
    [37, 1000, 5].map((n) => Float32Array.from({ length: n }, (_, i) => (((i * 29) % 89) - 44) / 32));
  it.each([
    [2, '41cf8c7d', ['bcd91618', 'bc14036e', '3c0a2555', '3cd4270c', 'bc27bf9e', '3becd249', '3cca48f4', 'bc3b7bcf']],
    [
      Infinity,
      '3fb00000',
      ['befffff4', 'be2e8b9b', '3e22e8b3', '3efa2e80', 'be45d16b', '3e0ba2e2', '3eee8b98', 'be5d173c'],
    ],
  ])('norm_type %s matches torch 2.11 to float32 rounding', (normType, total, head) => {
    const gs = tensors();
    const r = clipGradNorm(gs, 0.5, normType);
    expectClose('total', [r.totalNorm], fromHex([total]), { rtol: 2 ** -23, atol: 0 });
    // A one-ulp change of the coefficient moves a clipped gradient by up to two ulps.
    for (const g of gs)
      expectClose('clipped', g.subarray(0, 8), fromHex(head.slice(0, g.length)), { rtol: 2 ** -22, atol: 0 });
    if (normType === Infinity) expect(hex([r.totalNorm])).toEqual([total]); // max |g|: exact
  });

  it('multiplies by exactly 1 when the norm is below max_norm and returns the pre-clip norm', () => {
    const gs = tensors();
    const before = gs.map((g) => g.slice());
    const r = clipGradNorm(gs, 1e4);
    expect(r.clipCoef).toBe(1);
    expect(gs).toEqual(before);
    expect(r.totalNorm).toBe(gradNorm(before).totalNorm);
  });

  it('the coefficient is min((1 / (total + 1e-6)) * max_norm, 1) in float32', () => {
    expect(clipCoefficient(0, 0.5)).toBe(1);
    expect(clipCoefficient(4, 0.5)).toBe(f(f(1 / f(4 + f(1e-6))) * 0.5));
    expect(clipCoefficient(Infinity, 0.5)).toBe(0);
  });

  it('non-finite gradients: NaN total and NaN grads, as PyTorch with error_if_nonfinite=False', () => {
    const g = Float32Array.of(1, NaN);
    const r = clipGradNorm([g, Float32Array.of(2)], 1);
    expect(Number.isNaN(r.totalNorm)).toBe(true);
    expect(Number.isNaN(g[0]!)).toBe(true);
    expect(clipGradNorm([], 1).totalNorm).toBe(0);
    expect(() => gradNorm([g], 1)).toThrow(/norm_type/);
  });

  it('fromHex and hex round-trip (test helpers)', () => {
    expect(hex(fromHex(['41533e72']))).toEqual(['41533e72']);
  });
});
