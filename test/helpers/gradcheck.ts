// Test helpers for the CPU reference ops: deterministic pseudo-random data, central finite
// differences in float64, and an expectation that prints compareTensors' one-line report.
import { expect } from 'vitest';
import { compareTensors, formatComparison, type Comparable, type Tolerance } from '../../src/reference/compare.ts';

/** mulberry32: a small deterministic PRNG; returns floats in [0, 1). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` float64 values uniform in [-scale, scale). */
export function uniform(n: number, seed: number, scale = 1): Float64Array {
  const r = rng(seed);
  return Float64Array.from({ length: n }, () => (2 * r() - 1) * scale);
}

/**
 * `n` distinct values in (-scale, scale), shuffled: 2 * scale / n apart and at least scale / (2n)
 * from 0, so a finite-difference step h below that never crosses a tie or ReLU's kink.
 */
export function distinct(n: number, seed: number, scale = 1): Float64Array {
  const r = rng(seed);
  const v = Float64Array.from({ length: n }, (_, i) => (((i + 0.25) / n) * 2 - 1) * scale);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    const t = v[i]!;
    v[i] = v[j]!;
    v[j] = t;
  }
  return v;
}

/** sum_i a[i] * b[i] in float64. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * Central differences dL/dx[i] = (L(x + h e_i) - L(x - h e_i)) / 2h in float64, for the indices
 * `at` (all when omitted). `x` is perturbed in place and restored.
 */
export function numericGrad(loss: () => number, x: Float64Array, h = 1e-6, at?: readonly number[]): Float64Array {
  const idx = at ?? Array.from({ length: x.length }, (_, i) => i);
  const g = new Float64Array(idx.length);
  idx.forEach((i, k) => {
    const x0 = x[i]!;
    x[i] = x0 + h;
    const lp = loss();
    x[i] = x0 - h;
    const lm = loss();
    x[i] = x0;
    g[k] = (lp - lm) / (2 * h);
  });
  return g;
}

/** Expects `actual` within tolerance of `expected`; the failure message is formatComparison's line. */
export function expectClose(name: string, actual: Comparable, expected: Comparable, tol: Tolerance): void {
  const c = compareTensors(actual, expected, tol);
  expect(c.ok, formatComparison(name, c)).toBe(true);
}

/** Float32 bit patterns as 8-digit hex strings. */
export function hex(a: ArrayLike<number>): string[] {
  const f = Float32Array.from(a);
  return Array.from(new Uint32Array(f.buffer), (u) => u.toString(16).padStart(8, '0'));
}

/** Float32 values from 8-digit hex bit patterns. */
export function fromHex(h: readonly string[]): Float32Array {
  return new Float32Array(Uint32Array.from(h, (s) => parseInt(s, 16)).buffer);
}
