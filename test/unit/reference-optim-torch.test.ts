// Optimizer references against torch 2.11 (CPU, float32) bit for bit: SGD variants and Adam/AdamW
// variants, three steps on 37 elements (32 in PyTorch's vectorised loop, 5 in its scalar tail).
// Inputs are dyadic rationals, exact in float32; test/helpers/torch-goldens.py made the values.
import { describe, expect, it } from 'vitest';
import type { AdamOptions } from '../../src/numeric/adam-scalars.ts';
import { adamInit, adamStep } from '../../src/reference/adam.ts';
import { sgdInit, sgdStep, type SgdOptions } from '../../src/reference/sgd.ts';
import { hex } from '../helpers/gradcheck.ts';
import goldens from '../fixtures/optim_torch_goldens.json';

const N = 37;
const p0 = () => Float32Array.from({ length: N }, (_, i) => (((i * 37) % 101) - 50) / 16);
/** Step k's gradient; every fifth element is tiny (~1e-7), where Adam's eps and rounding matter. */
const grad = (k: number) =>
  Float32Array.from({ length: N }, (_, i) => {
    const v = (((i * 53 + k * 17) % 97) - 48) / 64;
    return i % 5 === 3 ? v * 2 ** -20 : v;
  });

const CASES: Record<string, ['sgd', SgdOptions] | ['adam', AdamOptions]> = {
  sgd_m: ['sgd', { lr: 0.1, momentum: 0.9 }],
  sgd_damp_wd: ['sgd', { lr: 0.05, momentum: 0.9, dampening: 0.1, weightDecay: 0.01 }],
  sgd_nest_wd: ['sgd', { lr: 0.05, momentum: 0.9, nesterov: true, weightDecay: 0.1 }],
  sgd_plain_max: ['sgd', { lr: 0.1, weightDecay: 0.01, maximize: true }],
  adam: ['adam', { lr: 1e-3 }],
  adam_l2: ['adam', { lr: 1e-2, weightDecay: 0.1 }],
  adamw: ['adam', { lr: 1e-2, weightDecay: 0.1, decoupled: true }],
  adam_b03: ['adam', { lr: 1e-2, beta1: 0.3, beta2: 0.99, eps: 1e-6 }], // lerp's |weight| >= 0.5 branch
};

/** Parameters after the third step, float32 hex, from torch 2.11.0+cu130 on CPU (AVX-512). */
const TORCH = (goldens as { params: Record<keyof typeof CASES, string[]> }).params;

describe('optimizer references vs torch 2.11, bit for bit', () => {
  it.each(Object.keys(CASES))('%s: three steps', (name) => {
    const [kind, opts] = CASES[name]!;
    const p = p0();
    const sgd = sgdInit();
    const adam = adamInit(N);
    for (let k = 0; k < 3; k++) {
      if (kind === 'sgd') sgdStep(p, grad(k), sgd, opts);
      else adamStep(p, grad(k), adam, opts);
    }
    expect(hex(p)).toEqual(TORCH[name]);
  });
});
