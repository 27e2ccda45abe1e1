// Which kernels `webddp check` marks as chosen by a tuning (the others are checked too, tagged
// "not selected by this tuning"): the convolution and linear variants each tuning picks.
import { describe, expect, it } from 'vitest';
import { selectedKernels } from '../../src/check/kernels.ts';
import { GPU_TUNING, SOFTWARE_TUNING } from '../../src/gpu/tuning.ts';

describe('selectedKernels', () => {
  it('SwiftShader: the wide convolutions and the register linear kernels', () => {
    const s = selectedKernels(SOFTWARE_TUNING, 4);
    expect(s.has('conv2d_forward_wide')).toBe(true);
    expect(s.has('conv2d_forward_tiled')).toBe(false);
    expect(s.has('linear_forward')).toBe(true);
    expect(s.has('linear_backward_weight')).toBe(true);
    expect(s.has('linear_forward_tiled')).toBe(false);
    expect(s.has('linear_forward_reduce')).toBe(false);
    expect(s.has('linear_backward_weight_tiled')).toBe(false);
    expect(s.has('linear_backward_input')).toBe(true);
  });

  it('a real GPU: tiled convolutions and fc1 tiled, fc2 still on the register linear kernels', () => {
    const s = selectedKernels(GPU_TUNING, 32);
    expect(s.has('conv2d_forward_tiled')).toBe(true);
    expect(s.has('conv2d_forward_wide')).toBe(false);
    for (const k of [
      'linear_forward',
      'linear_forward_tiled',
      'linear_forward_reduce',
      'linear_backward_weight',
      'linear_backward_weight_tiled',
      'conv2d_backward_weight_reduce',
      'conv2d_backward_weight_reduce_subgroup',
    ] as const)
      expect(s.has(k), k).toBe(true);
  });

  it('f16 subgroup matrices: the kernels the tuning names, only on a device that has them', () => {
    expect(selectedKernels(GPU_TUNING, 32, false).has('linear_forward_sgmat')).toBe(false);
    const s = selectedKernels(GPU_TUNING, 32, true);
    expect(s.has('linear_forward_sgmat')).toBe(true);
    for (const k of ['conv2d_forward_sgmat', 'conv2d_backward_input_sgmat', 'linear_backward_weight_sgmat'] as const)
      expect(s.has(k), k).toBe(false);
    const all = selectedKernels({ ...GPU_TUNING, halfMatrix: ['conv-forward', 'conv-weight'] }, 32, true);
    expect(all.has('conv2d_forward_sgmat')).toBe(true);
    expect(all.has('conv2d_backward_weight_sgmat')).toBe(true);
    expect(all.has('linear_forward_sgmat')).toBe(false);
  });
});
