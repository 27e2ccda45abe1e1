// The work of each kernel of a training step, by the label `webddp bench --profile` times it
// under: floating-point operations (a multiply-add is 2) and the fewest bytes it must move
// (each float32 operand read once and each result written once), for SimpleCNN at a batch size.
// Dividing by the measured time gives TFLOP/s and GB/s; FLOP per byte says whether a kernel can be
// compute-bound at all (an H200 does about 67 TFLOP/s of float32 without tensor cores and 4.8 TB/s
// from HBM, so below about 14 FLOP/byte memory bounds it). Kernels not listed (the split-K
// reductions, the loss) do little work.
import type { ModelSpec } from '../nn/spec.ts';

export interface KernelWork {
  readonly flops: number;
  readonly bytes: number;
}

const F32 = 4;

/** Work per profiled kernel label for one step of `batch` images. */
export function kernelWork(spec: ModelSpec, batch: number): Record<string, KernelWork> {
  const b = batch;
  const [cin, h, w] = spec.input;
  const work: Record<string, KernelWork> = {};
  const conv = (name: string, ci: number, co: number, size: number, withInputGrad: boolean) => {
    const macs = b * co * size * size * ci * 9;
    const input = b * ci * size * size * F32;
    const output = b * co * size * size * F32;
    const weights = (co * ci * 9 + co) * F32;
    work[`${name}.forward`] = { flops: 2 * macs, bytes: input + weights + output };
    if (withInputGrad) work[`${name}.backward_input`] = { flops: 2 * macs, bytes: output + weights + input };
    work[`${name}.backward_weight`] = { flops: 2 * macs, bytes: input + output + weights };
  };
  const pool = (name: string, c: number, size: number) => {
    const full = b * c * size * size * F32;
    work[`${name}.forward`] = { flops: 0, bytes: full + full / 4 };
    work[`${name}.backward`] = { flops: 0, bytes: full / 4 + full };
  };
  const linear = (name: string, inF: number, outF: number) => {
    const macs = b * inF * outF;
    const x = b * inF * F32;
    const y = b * outF * F32;
    const weights = (inF * outF + outF) * F32;
    work[`${name}.forward`] = { flops: 2 * macs, bytes: x + weights + y };
    work[`${name}.backward_input`] = { flops: 2 * macs, bytes: y + weights + x };
    work[`${name}.backward_weight`] = { flops: 2 * macs, bytes: x + y + weights };
  };
  // uint8 pixels in, normalised float32 out
  work['input.normalize'] = { flops: 2 * b * cin * h * w, bytes: b * cin * h * w * (1 + F32) };
  conv('conv1', cin, spec.c1, h, false);
  pool('pool1', spec.c1, h);
  conv('conv2', spec.c1, spec.c2, h / 2, true);
  pool('pool2', spec.c2, h / 2);
  linear('fc1', spec.c2 * (h / 4) * (w / 4), spec.hidden);
  linear('fc2', spec.hidden, spec.classes);
  // SGD with momentum: parameters, gradients and momentum read, parameters and momentum written
  work['sgd.step'] = { flops: 4 * spec.total, bytes: 5 * spec.total * F32 };
  return work;
}
