// torch.optim.Adam / AdamW's step-dependent scalars (torch/optim/adam.py's single-tensor path):
// bc1 = 1 - b1^step, bc2 = 1 - b2^step, step_size = lr / bc1 in float64, each Python scalar rounded
// to float32 where a kernel receives it. The GPU optimizer feeds them to shaders/adam_step.wgsl; the
// CPU reference (src/reference/adam.ts) to its own elementwise update.
import { f32 } from './f32.ts';

/** Adam hyper-parameters; AdamW is `decoupled: true` (torch.optim.AdamW's default weightDecay is 0.01). */
export interface AdamOptions {
  readonly lr: number;
  readonly beta1?: number;
  readonly beta2?: number;
  readonly eps?: number;
  readonly weightDecay?: number;
  /** Decoupled weight decay (AdamW). */
  readonly decoupled?: boolean;
}

/** The float32 scalars one step feeds to the elementwise update (shaders/adam_step.wgsl's Params). */
export interface AdamScalars {
  readonly oneMinusBeta1: number;
  readonly beta2: number;
  readonly oneMinusBeta2: number;
  readonly eps: number;
  readonly stepSize: number;
  readonly bc2Sqrt: number;
  readonly weightDecay: number;
  /** f32(1 - lr * weightDecay): AdamW's parameter decay factor. */
  readonly decay: number;
}

/** The float32 scalars of step number `step` (1 for the first step), computed as PyTorch does. */
export function adamScalars(step: number, opts: AdamOptions): AdamScalars {
  const { lr, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0 } = opts;
  if (!(lr >= 0) || !(eps >= 0) || !(weightDecay >= 0) || !(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1)) {
    throw new RangeError(`invalid Adam hyper-parameters ${JSON.stringify(opts)}`);
  }
  const bc1 = 1 - beta1 ** step;
  const bc2 = 1 - beta2 ** step;
  return {
    oneMinusBeta1: f32(1 - beta1),
    beta2: f32(beta2),
    oneMinusBeta2: f32(1 - beta2),
    eps: f32(eps),
    stepSize: f32(lr / bc1),
    bc2Sqrt: f32(Math.sqrt(bc2)),
    weightDecay: f32(weightDecay),
    decay: f32(1 - lr * weightDecay),
  };
}
