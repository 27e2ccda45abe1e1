// ReLU reference (torch.relu and its backward, threshold_backward(dy, y, 0)). The WGSL kernels
// fuse ReLU into conv2d/linear forward and its backward into maxpool2d/linear backward (see those
// files); this stand-alone pair is the oracle for the fused versions.
//   y = max(x, 0)            (NaN stays NaN)
//   dx = dy * (y > 0)        (the mask of the output, which equals the mask of the input)
import { expectLength, output, type Tensor } from './tensor.ts';

/** Forward: y = relu(x), elementwise. */
export function reluForward<T extends Tensor = Float32Array>(
  x: Tensor, // [...]
  out?: T, //   [...] same length as x
): T {
  const y = output(out, x.length, 'relu y', 'x.length');
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    y[i] = v <= 0 ? 0 : v;
  }
  return y;
}

/** Backward: dx = dy where the forward output y > 0, else 0. */
export function reluBackward<T extends Tensor = Float32Array>(
  dy: Tensor, // [...]
  y: Tensor, //  [...] the forward output
  out?: T, //    [...]
): T {
  expectLength('relu y', y, dy.length, 'dy.length');
  const dx = output(out, dy.length, 'relu dx', 'dy.length');
  for (let i = 0; i < dy.length; i++) dx[i] = y[i]! > 0 ? dy[i]! : 0;
  return dx;
}
