// Softmax cross-entropy reference (F.cross_entropy with integer targets, reduction='mean', no
// weights, no ignore_index, no label smoothing), as shaders/softmax_xent_*.wgsl. Float64 throughout.
//   loss_n = logsumexp(z[n,:]) - z[n, y[n]]
//   forward:  { loss: sum_n loss_n / N, correct: #{argmax z[n,:] == y[n]}, lossSum: sum_n loss_n }
//   backward: dz[n,c] = (softmax(z[n,:])[c] - (c == y[n])) * scale   (scale = 1/N for the mean)
// Labels must lie in 0..C-1 (PyTorch's ignore_index = -100 is not supported: it throws).
import { checkDim, expectLength, output, type Tensor } from './tensor.ts';

/** Sizes: n samples of c classes. */
export interface SoftmaxXentShape {
  readonly n: number;
  readonly c: number;
}

/** What softmaxXentForward returns; loss and lossSum are float64 (not rounded to float32). */
export interface XentStats {
  /** Mean cross-entropy over the n samples. */
  readonly loss: number;
  /** Number of samples whose first-maximum logit is the label (torch.argmax: a NaN counts as the maximum). */
  readonly correct: number;
  /** Sum of the per-sample losses. */
  readonly lossSum: number;
}

function check(labels: Int32Array, s: SoftmaxXentShape): void {
  checkDim('softmax_xent n', s.n);
  checkDim('softmax_xent c', s.c);
  expectLength('softmax_xent labels', labels, s.n, 'N');
  for (let i = 0; i < s.n; i++) {
    const y = labels[i]!;
    if (y < 0 || y >= s.c) throw new RangeError(`softmax_xent label ${i} is ${y}, outside 0..${s.c - 1}`);
  }
}

/** Max and log-sum-exp of one row of logits. */
function rowStats(z: Tensor, row: number, c: number): { max: number; arg: number; lse: number } {
  let max = z[row]!;
  let arg = 0;
  for (let k = 1; k < c; k++) {
    const v = z[row + k]!;
    if (!Number.isNaN(max) && (v > max || Number.isNaN(v))) {
      max = v;
      arg = k;
    }
  }
  let s = 0;
  for (let k = 0; k < c; k++) s += Math.exp(z[row + k]! - max);
  return { max, arg, lse: max + Math.log(s) };
}

/** Forward: mean cross-entropy, correct count and loss sum. */
export function softmaxXentForward(
  logits: Tensor, //     [N, C]
  labels: Int32Array, // [N] in 0..C-1
  s: SoftmaxXentShape,
): XentStats {
  check(labels, s);
  expectLength('softmax_xent logits', logits, s.n * s.c, 'N*C');
  let lossSum = 0;
  let correct = 0;
  for (let b = 0; b < s.n; b++) {
    const row = b * s.c;
    const y = labels[b]!;
    const { arg, lse } = rowStats(logits, row, s.c);
    lossSum += lse - logits[row + y]!;
    if (arg === y) correct++;
  }
  return { loss: lossSum / s.n, correct, lossSum };
}

/** Backward: dz = (softmax(z) - onehot(y)) * scale (written, not accumulated). */
export function softmaxXentBackward<T extends Tensor = Float32Array>(
  logits: Tensor, //     [N, C]
  labels: Int32Array, // [N] in 0..C-1
  s: SoftmaxXentShape,
  scale = 1 / s.n,
  out?: T, //            [N, C]
): T {
  check(labels, s);
  expectLength('softmax_xent logits', logits, s.n * s.c, 'N*C');
  const dz = output(out, s.n * s.c, 'softmax_xent dz', 'N*C');
  for (let b = 0; b < s.n; b++) {
    const row = b * s.c;
    const { lse } = rowStats(logits, row, s.c);
    for (let k = 0; k < s.c; k++) {
      const p = Math.exp(logits[row + k]! - lse);
      dz[row + k] = (k === labels[b] ? p - 1 : p) * scale;
    }
  }
  return dz;
}
