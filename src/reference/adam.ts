// torch.optim.Adam / AdamW reference (single-tensor path of torch/optim/adam.py, torch 2.1+), in
// float32 exactly as PyTorch's CPU kernels compute it:
//   step += 1                                     (a float32 counter, before the update)
//   AdamW: p = p * f32(1 - lr * wd)               param.mul_(1 - lr*wd), before the moments
//   Adam with wd: g = fma(p, wd, g)               grad.add(param, alpha=wd)
//   m = fma(1 - b1, g - m, m)                     exp_avg.lerp_(g, 1 - b1): one FMA (Lerp.h; b1 > 0.5)
//   v = fma((1 - b2) * g, g, v * b2)              mul_(b2).addcmul_(g, g, value=1-b2)
//   denom = sqrt(v) / f32(sqrt(bc2)) + eps        eps after the bias correction
//   p = p + (-step_size * m) / denom              addcdiv_: (value * t1) / t2, then + self
// with bc1 = 1 - b1^step, bc2 = 1 - b2^step, step_size = lr / bc1 in float64, each Python scalar
// rounded to float32 where a kernel receives it. The step is elementwise, so it applies to one
// tensor or to a whole flat parameter arena alike (all tensors share the step count).
// One known difference: sqrt here is correctly rounded; torch 2.11's x86 CPU sqrt is not quite
// (errors up to ~0.56 ulp when the exact root lies near a rounding midpoint, presumably MKL VML).
// Measured on the simplecnn_grad fixture with torch's own gradients: 0.6% of the square roots and
// 0.16% of the parameters after two steps differ by one ulp; every other bit agrees.
import { adamScalars, type AdamOptions } from '../numeric/adam-scalars.ts';
import { f32, fma32 } from '../numeric/f32.ts';
import { expectLength } from './tensor.ts';

/** Optimizer state (PyTorch's state['step'], state['exp_avg'], state['exp_avg_sq']). */
export interface AdamState {
  step: number;
  readonly m: Float32Array;
  readonly v: Float32Array;
}

/** A fresh state for `size` parameters, as before PyTorch's first step(). */
export function adamInit(size: number): AdamState {
  return { step: 0, m: new Float32Array(size), v: new Float32Array(size) };
}

/** One Adam / AdamW step: updates `param` and the state in place. */
export function adamStep(
  param: Float32Array, // [P] parameters, updated in place
  grad: Float32Array, //  [P] gradients
  state: AdamState,
  opts: AdamOptions,
): void {
  expectLength('adam grad', grad, param.length, 'param.length');
  expectLength('adam exp_avg', state.m, param.length, 'param.length');
  expectLength('adam exp_avg_sq', state.v, param.length, 'param.length');
  state.step = f32(state.step + 1);
  const k = adamScalars(state.step, opts);
  const decoupled = opts.decoupled === true;
  const l2 = !decoupled && k.weightDecay !== 0;
  const decay = decoupled && k.weightDecay !== 0;
  const nss = -k.stepSize;
  // lerp(m, g, w): m + w * (g - m) for |w| < 0.5, else g - (g - m) * (1 - w), each one FMA.
  const w = k.oneMinusBeta1;
  const wm1 = f32(w - 1);
  const lerpSmall = Math.abs(w) < 0.5;
  const { m, v } = state;
  for (let i = 0; i < param.length; i++) {
    let p = param[i]!;
    let g = grad[i]!;
    if (decay) p = f32(p * k.decay);
    else if (l2) g = fma32(p, k.weightDecay, g);
    const d = f32(g - m[i]!);
    const mi = lerpSmall ? fma32(w, d, m[i]!) : fma32(wm1, d, g);
    const vi = fma32(f32(k.oneMinusBeta2 * g), g, f32(v[i]! * k.beta2));
    m[i] = mi;
    v[i] = vi;
    const denom = f32(f32(f32(Math.sqrt(vi)) / k.bc2Sqrt) + k.eps);
    param[i] = f32(p + f32(f32(nss * mi) / denom));
  }
}
