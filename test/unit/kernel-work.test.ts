// The work bench --profile divides by each kernel's time: SimpleCNN's training step is about 35
// MFLOP per image (the count the throughput targets work from), conv2 is most of it, and the byte counts are
// each operand once.
import { describe, expect, it } from 'vitest';
import { kernelWork } from '../../src/throughput/kernel-work.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';

describe('kernelWork', () => {
  it('counts SimpleCNN forward and backward FLOPs per image and each operand once', () => {
    const spec = simpleCnnSpec(1);
    const one = kernelWork(spec, 1);
    // conv2: 64 outputs x 16x16 x 32 inputs x 3x3, a multiply-add each, in forward, input and weight gradient
    expect(one['conv2.forward']?.flops).toBe(2 * 64 * 16 * 16 * 32 * 9);
    expect(one['conv2.backward_input']?.flops).toBe(one['conv2.forward']?.flops);
    // conv1 has no input gradient (the images need none)
    expect(one['conv1.backward_input']).toBeUndefined();
    const perImage = Object.entries(one)
      .filter(([k]) => k !== 'sgd.step')
      .reduce((a, [, w]) => a + w.flops, 0);
    const conv1 = 2 * 32 * 32 * 32 * 3 * 9;
    const conv2 = 2 * 64 * 16 * 16 * 32 * 9;
    const fc = 2 * 4096 * 128 + 2 * 128 * 10;
    // forward + weight gradient of conv1, all three of conv2 and the linears, and normalising
    expect(perImage).toBe(2 * conv1 + 3 * conv2 + 3 * fc + 2 * 3072);
    expect(perImage / 1e6).toBeCloseTo(35.0, 1);
    // fc1 forward: x (4096 floats), W and bias (4096 x 128 + 128), y (128)
    expect(one['fc1.forward']?.bytes).toBe(4 * (4096 + 4096 * 128 + 128 + 128));
    // linear in the batch, except the parameters
    const many = kernelWork(spec, 8);
    expect(many['conv2.forward']?.flops).toBe(8 * (one['conv2.forward']?.flops ?? 0));
    expect(many['sgd.step']).toEqual(one['sgd.step']);
    expect(one['sgd.step']?.bytes).toBe(5 * 4 * spec.total);
  });
});
