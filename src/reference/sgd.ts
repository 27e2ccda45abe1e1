// torch.optim.SGD reference (single-tensor path, torch 2.x), in float32 as PyTorch's CPU kernels:
//   g = maximize ? -grad : grad
//   g = g + weight_decay * p                       grad.add(param, alpha=wd): one fma
//   buf = first step ? g : buf * momentum + (1 - dampening) * g   buf.mul_(m).add_(g, alpha=1-d): fma
//   g = nesterov ? g + momentum * buf : buf        (only when momentum != 0)
//   p = p - lr * g                                 param.add_(g, alpha=-lr): one fma
// Every Python scalar is rounded to float32 before use; add(alpha=) is an FMA in PyTorch's
// vectorised CPU kernel, as in shaders/sgd_step.wgsl. The step is elementwise, so it applies to
// one tensor or to a whole flat parameter arena alike.
import { f32, fma32 } from '../numeric/f32.ts';
import { expectLength } from './tensor.ts';

/** torch.optim.SGD hyper-parameters (defaults as PyTorch's, except lr, which it requires). */
export interface SgdOptions {
  readonly lr: number;
  readonly momentum?: number;
  readonly dampening?: number;
  readonly weightDecay?: number;
  readonly nesterov?: boolean;
  readonly maximize?: boolean;
}

/** Optimizer state: the momentum buffer, created (a copy of the first step's direction) lazily. */
export interface SgdState {
  momentumBuffer: Float32Array | null;
}

/** A fresh state, as before PyTorch's first step(). */
export function sgdInit(): SgdState {
  return { momentumBuffer: null };
}

/** One SGD step: updates `param` (and the state) in place. */
export function sgdStep(
  param: Float32Array, // [P] parameters, updated in place
  grad: Float32Array, //  [P] gradients
  state: SgdState,
  opts: SgdOptions,
): void {
  expectLength('sgd grad', grad, param.length, 'param.length');
  const { lr, momentum = 0, dampening = 0, weightDecay = 0, nesterov = false, maximize = false } = opts;
  if (nesterov && (momentum <= 0 || dampening !== 0))
    throw new RangeError('Nesterov momentum requires a momentum and zero dampening');
  if (!(lr >= 0) || !(momentum >= 0) || !(weightDecay >= 0))
    throw new RangeError(`invalid SGD hyper-parameters ${JSON.stringify(opts)}`);
  const nlr = f32(-lr);
  const mom = f32(momentum);
  const oneMinusDamp = f32(1 - dampening);
  const wd = f32(weightDecay);
  let buf = state.momentumBuffer;
  const first = buf === null;
  if (momentum !== 0) {
    if (buf === null) buf = state.momentumBuffer = new Float32Array(param.length);
    expectLength('sgd momentum buffer', buf, param.length, 'param.length');
  }
  for (let i = 0; i < param.length; i++) {
    const p = param[i]!;
    let g = maximize ? -grad[i]! : grad[i]!;
    if (weightDecay !== 0) g = fma32(p, wd, g);
    if (buf !== null) {
      const b = first ? g : fma32(g, oneMinusDamp, f32(buf[i]! * mom));
      buf[i] = b;
      g = nesterov ? fma32(b, mom, g) : b;
    }
    param[i] = fma32(g, nlr, p);
  }
}
