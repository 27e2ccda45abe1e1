// Linear reference (torch.nn.Linear: weight [O, I] row-major, y = x W^T + b) with an optional
// fused ReLU, as shaders/linear_*.wgsl. Sums run in float64.
//   y[n,o]  = act(b[o] + sum_i x[n,i] * w[o,i])
//   dx[n,i] = mask(n,i) * sum_o dy[n,o] * w[o,i]    mask = (x[n,i] > 0) with reluMask, else 1
//   dw[o,i] = sum_n dy[n,o] * x[n,i];  db[o] = sum_n dy[n,o]
// reluMask fuses the ReLU backward of a layer whose input x = relu(z) is a ReLU output: it writes
// dz = dx * (x > 0) directly. dy is the gradient of this layer's pre-activation.
import { checkDim, expectLength, output, type Tensor } from './tensor.ts';

/** Sizes of a linear layer: input [n, i], output [n, o]. */
export interface LinearShape {
  readonly n: number;
  readonly i: number;
  readonly o: number;
}

function check(s: LinearShape): void {
  for (const k of ['n', 'i', 'o'] as const) checkDim(`linear ${k}`, s[k]);
}

/** Forward: y = act(x W^T + b), act = ReLU when `relu`. */
export function linearForward<T extends Tensor = Float32Array>(
  x: Tensor, //      [N, I]
  weight: Tensor, // [O, I]
  bias: Tensor, //   [O]
  s: LinearShape,
  relu = false,
  out?: T, //        [N, O]
): T {
  check(s);
  const { n, i: ni, o: no } = s;
  expectLength('linear x', x, n * ni, 'N*I');
  expectLength('linear weight', weight, no * ni, 'O*I');
  expectLength('linear bias', bias, no, 'O');
  const y = output(out, n * no, 'linear y', 'N*O');
  for (let b = 0; b < n; b++) {
    const xr = b * ni;
    for (let o = 0; o < no; o++) {
      const wr = o * ni;
      let sum = bias[o]!;
      for (let k = 0; k < ni; k++) sum += x[xr + k]! * weight[wr + k]!;
      y[b * no + o] = relu && sum <= 0 ? 0 : sum; // NaN stays NaN, as torch.relu
    }
  }
  return y;
}

/** Backward input: dx = dy W, times the ReLU mask of x when `reluMask` (written, not accumulated). */
export function linearBackwardInput<T extends Tensor = Float32Array>(
  dy: Tensor, //     [N, O]
  weight: Tensor, // [O, I]
  x: Tensor | null, // [N, I] the forward input; read only when reluMask
  s: LinearShape,
  reluMask = false,
  out?: T, //        [N, I]
): T {
  check(s);
  const { n, i: ni, o: no } = s;
  expectLength('linear dy', dy, n * no, 'N*O');
  expectLength('linear weight', weight, no * ni, 'O*I');
  if (reluMask) {
    if (x === null) throw new TypeError('linearBackwardInput: reluMask needs the forward input x');
    expectLength('linear x', x, n * ni, 'N*I');
  }
  const dx = output(out, n * ni, 'linear dx', 'N*I');
  const acc = new Float64Array(ni);
  for (let b = 0; b < n; b++) {
    acc.fill(0);
    for (let o = 0; o < no; o++) {
      const g = dy[b * no + o]!;
      const wr = o * ni;
      for (let k = 0; k < ni; k++) acc[k] = acc[k]! + g * weight[wr + k]!;
    }
    const xr = b * ni;
    for (let k = 0; k < ni; k++) dx[xr + k] = reluMask && !(x![xr + k]! > 0) ? 0 : acc[k]!;
  }
  return dx;
}

/** Backward weight and bias: dw = dy^T x, db = column sums of dy (fresh, or written into `out`). */
export function linearBackwardWeight<T extends Tensor = Float32Array>(
  dy: Tensor, // [N, O] gradient of the pre-activation
  x: Tensor, //  [N, I] the forward input
  s: LinearShape,
  out?: { dw: T; db: T }, // dw [O, I], db [O]
): { dw: T; db: T } {
  check(s);
  const { n, i: ni, o: no } = s;
  expectLength('linear dy', dy, n * no, 'N*O');
  expectLength('linear x', x, n * ni, 'N*I');
  const dw = output(out?.dw, no * ni, 'linear dw', 'O*I');
  const db = output(out?.db, no, 'linear db', 'O');
  const acc = new Float64Array(ni);
  for (let o = 0; o < no; o++) {
    acc.fill(0);
    let sb = 0;
    for (let b = 0; b < n; b++) {
      const g = dy[b * no + o]!;
      sb += g;
      const xr = b * ni;
      for (let k = 0; k < ni; k++) acc[k] = acc[k]! + g * x[xr + k]!;
    }
    dw.set(acc, o * ni);
    db[o] = sb;
  }
  return { dw, db };
}
