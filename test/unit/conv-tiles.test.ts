// Which forward / input-gradient / reduce kernels a convolution layer picks (conv2d-tiles.ts): the
// tiled ones only where the tuning asks, the summed channels fill a tile and the device's limits
// hold it; the subgroup reduce only on a device with one subgroup size; bad tiles name themselves.
import { describe, expect, it } from 'vitest';
import { GPU_TUNING, SOFTWARE_TUNING, type Tuning } from '../../src/gpu/tuning.ts';
import { forwardTiles, inputTiles, reduceSubgroup } from '../../src/nn/layers/conv2d-tiles.ts';

const limits = (storage: number, invocations = 256) => ({
  maxComputeWorkgroupStorageSize: storage,
  maxComputeInvocationsPerWorkgroup: invocations,
});
const withTiles = (kernel: 'conv2d_forward_tiled' | 'conv2d_backward_input_tiled', t: Record<string, number>) =>
  ({ ...GPU_TUNING, kernels: { ...GPU_TUNING.kernels, [kernel]: t } }) as Tuning;

describe('conv2d forward and input-gradient tiles', () => {
  it('tiles conv2 (32 -> 64 channels) on a real GPU, within 32 KB of workgroup memory', () => {
    expect(forwardTiles(32, GPU_TUNING, limits(32768, 1024))).toEqual(GPU_TUNING.kernels.conv2d_forward_tiled);
    expect(inputTiles(64, GPU_TUNING, limits(32768, 1024))).toEqual(GPU_TUNING.kernels.conv2d_backward_input_tiled);
    // 4 channel groups x 16 rows x 4 pixel groups = 256 invocations: SwiftShader's limit, not 128
    expect(forwardTiles(32, GPU_TUNING, limits(32768, 256))).not.toBeNull();
    expect(forwardTiles(32, GPU_TUNING, limits(32768, 128))).toBeNull();
  });

  it('keeps the register kernels for conv1 (3 input channels), on SwiftShader, and where a tile does not fit', () => {
    expect(forwardTiles(3, GPU_TUNING, limits(32768))).toBeNull();
    expect(forwardTiles(32, SOFTWARE_TUNING, limits(32768))).toBeNull();
    expect(inputTiles(64, SOFTWARE_TUNING, limits(32768))).toBeNull();
    expect(inputTiles(64, { ...GPU_TUNING, convInput: 'registers' }, limits(32768))).toBeNull();
    // 16 * 9 * 64 + 16 * 6 * 18 floats = 43.8 KB of workgroup memory
    const big = withTiles('conv2d_forward_tiled', { TCO: 64, TCI: 16, ROWS: 4, TW: 16 });
    expect(forwardTiles(32, big, limits(32768))).toBeNull();
    expect(forwardTiles(32, big, limits(49152))).toEqual({ TCO: 64, TCI: 16, ROWS: 4, TW: 16 });
    // 8 channel groups x 16 rows x 4 pixel groups = 512 invocations
    const tall = withTiles('conv2d_forward_tiled', { TCO: 64, TCI: 8, ROWS: 16, TW: 16 });
    expect(forwardTiles(32, tall, limits(32768, 256))).toBeNull();
    expect(forwardTiles(32, tall, limits(32768, 1024))).not.toBeNull();
  });

  it('names the constant of a tile the kernels cannot run', () => {
    expect(() => forwardTiles(32, withTiles('conv2d_forward_tiled', { TCO: 12 }))).toThrow(
      /tuning conv2d_forward_tiled\.TCO must be a multiple of 8 \(got 12\)/,
    );
    expect(() => inputTiles(64, withTiles('conv2d_backward_input_tiled', { TW: 6 }))).toThrow(
      /tuning conv2d_backward_input_tiled\.TW must be a multiple of 4 \(got 6\)/,
    );
  });
});

describe('conv2d weight-gradient reduce', () => {
  const subgroup: Tuning = { ...GPU_TUNING, convReduce: 'subgroup' };
  it('uses subgroups where asked (always, or for long sums) and the device has one subgroup size that OUTS fits', () => {
    expect(reduceSubgroup(subgroup, 32)).toBe(32);
    expect(reduceSubgroup(subgroup, 32, 128, 18496)).toBe(32);
    const auto: Tuning = { ...GPU_TUNING, convReduce: 'auto' };
    expect(reduceSubgroup(auto, 32, 4096, 896)).toBe(32); // conv1 at batch 2048: long sums
    expect(reduceSubgroup(auto, 32, 128, 18496)).toBe(0); // conv2: many short sums
    expect(reduceSubgroup(auto, 0, 4096, 896)).toBe(0);
    expect(reduceSubgroup(subgroup, 0)).toBe(0);
    expect(reduceSubgroup({ ...GPU_TUNING, convReduce: 'lanes' }, 32)).toBe(0);
    const wide = { ...subgroup, kernels: { ...subgroup.kernels, conv2d_backward_weight_reduce_subgroup: { OUTS: 8 } } };
    expect(reduceSubgroup(wide, 4)).toBe(0);
    const odd = { ...subgroup, kernels: { ...subgroup.kernels, conv2d_backward_weight_reduce_subgroup: { OUTS: 6 } } };
    expect(() => reduceSubgroup(odd, 32)).toThrow(/OUTS must be a power of two/);
  });
});
