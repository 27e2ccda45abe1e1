// torch.nn.utils.clip_grad_norm_ reference (torch/nn/utils/clip_grad.py, torch 2.x):
//   norms = per-tensor vector_norm(g)                float64 sums here, each norm rounded to float32
//   total = vector_norm(stack(norms))                the norm of the norms, rounded to float32
//   coef  = clamp((1 / (total + 1e-6)) * max_norm, max=1)   float32, as PyTorch (Tensor.__rtruediv__
//                                                    is reciprocal() * other)
//   g *= coef for every tensor                       always (by 1 when not clipping), in float32
// It returns the pre-clip total norm. norm_type 2 or Infinity (max |g|). As in PyTorch with
// error_if_nonfinite=False, a NaN or Inf total is not an error (the grads become NaN or 0).
// PyTorch's CPU norm sums squares in float32 lanes: on the simplecnn_grad fixture its total is
// 5.1166830, 6e-6 (relative) below the exact 5.1167149 that this reference returns (as 5.1167150).
import { clipCoefficient } from '../numeric/clip-coefficient.ts';
import { f32 } from '../numeric/f32.ts';

/** What clipGradNorm returns. */
export interface ClipResult {
  /** The total norm of all gradients before clipping (float32). */
  readonly totalNorm: number;
  /** The coefficient every gradient was multiplied by (float32, at most 1). */
  readonly clipCoef: number;
  /** Each tensor's norm before clipping (float32). */
  readonly norms: Float32Array;
}

function norm(g: Float32Array, normType: number): number {
  let s = 0;
  if (normType === Infinity) {
    for (let i = 0; i < g.length; i++) s = Math.max(s, Math.abs(g[i]!));
    return f32(s);
  }
  for (let i = 0; i < g.length; i++) s += g[i]! * g[i]!;
  return f32(Math.sqrt(s));
}

/** The total norm of `grads` (a norm of per-tensor norms), without changing them. */
export function gradNorm(
  grads: readonly Float32Array[], // one array per parameter tensor (views into a flat arena work)
  normType = 2,
): { totalNorm: number; norms: Float32Array } {
  if (normType !== 2 && normType !== Infinity)
    throw new RangeError(`norm_type ${String(normType)} is not supported (2 or Infinity)`);
  const norms = Float32Array.from(grads, (g) => norm(g, normType));
  return { totalNorm: norm(norms, normType), norms };
}

/** clip_grad_norm_(grads, maxNorm, normType): scales every gradient in place; returns the pre-clip norm. */
export function clipGradNorm(
  grads: readonly Float32Array[], // one array per parameter tensor, scaled in place
  maxNorm: number,
  normType = 2,
): ClipResult {
  if (grads.length === 0) return { totalNorm: 0, clipCoef: 1, norms: new Float32Array(0) };
  const { totalNorm, norms } = gradNorm(grads, normType);
  const clipCoef = clipCoefficient(totalNorm, maxNorm);
  for (const g of grads) {
    for (let i = 0; i < g.length; i++) g[i] = g[i]! * clipCoef;
  }
  return { totalNorm, clipCoef, norms };
}
