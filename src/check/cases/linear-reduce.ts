// The reduce kernels that finish a linear layer computed in slices, as the tiled and
// subgroup-matrix cases run them after their first kernel: linear_forward_reduce (the slices of
// [n, o] partial sums added in slice order, plus the bias, ReLU'd) and conv2d_backward_weight_reduce
// with the linear layer's tiles (the slices of [o, i + 1] weight and bias gradients added into a
// gradient arena).
import { cdiv, grid1d } from '../../gpu/op.ts';
import type { Gpu } from '../../gpu/device.ts';
import { WEIGHT_REDUCE } from '../../nn/layers/linear-tiles.ts';
import type { LinearShape } from '../../reference/linear.ts';
import { runOp, type OpInput } from './run-op.ts';

/** y = relu?(sum of `splits` slices of `partial` + the bias at `bOff` of `theta`): [n, o]. */
export async function reduceLinearForward(
  gpu: Gpu,
  s: Pick<LinearShape, 'n' | 'o'>,
  partial: Float32Array,
  theta: Float32Array,
  bOff: number,
  splits: number,
  relu = true,
): Promise<Float32Array> {
  const { y } = await runOp(
    gpu,
    'linear_forward_reduce',
    { n: s.n, o: s.o, b_off: bOff, relu: relu ? 1 : 0, splits },
    { partial, theta, y: s.n * s.o },
    (ov) => grid1d(s.n * s.o, ov.WG ?? 64),
  );
  return y!;
}

/**
 * `grad` (an arena, or a length for a zeroed one) with the sum of `splits` slices of `partial` added:
 * the weight gradient [o, i] at `wOff`, the bias gradient [o] at `bOff`.
 */
export async function reduceLinearWeight(
  gpu: Gpu,
  s: Pick<LinearShape, 'o' | 'i'>,
  partial: Float32Array,
  grad: OpInput,
  splits: number,
  wOff: number,
  bOff: number,
): Promise<Float32Array> {
  const out = await runOp(
    gpu,
    'conv2d_backward_weight_reduce',
    { co: s.o, k: s.i, splits, w_off: wOff, b_off: bOff, rank_grad: 0 },
    { partial, grad },
    (ov) => [cdiv(s.o * (s.i + 1), ov.OUTS ?? 64), 1, 1],
    { ...WEIGHT_REDUCE },
  );
  return out.grad!;
}
