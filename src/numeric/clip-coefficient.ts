// clip_grad_norm_'s coefficient (torch/nn/utils/clip_grad.py): clamp((1 / (total + 1e-6)) * max_norm,
// max=1) in float32, as PyTorch computes it (Tensor.__rtruediv__ is reciprocal() * other); a NaN
// total gives a NaN coefficient, as with error_if_nonfinite=False.
import { f32 } from './f32.ts';

/** clip_coef_clamped = min((1 / (total + 1e-6)) * maxNorm, 1) in float32 (shaders/clip_coef.wgsl). */
export function clipCoefficient(totalNorm: number, maxNorm: number): number {
  const coef = f32(f32(1 / f32(f32(totalNorm) + f32(1e-6))) * f32(maxNorm));
  return Number.isNaN(coef) ? coef : Math.min(coef, 1);
}
