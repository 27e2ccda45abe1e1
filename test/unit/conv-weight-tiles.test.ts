// Which weight-gradient kernel a convolution layer picks, and how many split-K slices it makes:
// tiles only where the tuning asks for them, the layer fills a tile's input channels and the
// device's limits hold the tile; the workspace has room for either kernel's slices.
import { describe, expect, it } from 'vitest';
import { GPU_TUNING, SOFTWARE_TUNING } from '../../src/gpu/tuning.ts';
import { Conv2dLayer } from '../../src/nn/layers/conv2d.ts';
import { simpleCnnLayers } from '../../src/nn/model.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';

const [conv1, , conv2] = simpleCnnLayers(simpleCnnSpec(1)) as [Conv2dLayer, unknown, Conv2dLayer];
const limits = (storage: number, invocations = 256) =>
  ({ maxComputeWorkgroupStorageSize: storage, maxComputeInvocationsPerWorkgroup: invocations }) as GPUSupportedLimits;

describe('Conv2dLayer weight-gradient kernel', () => {
  it('tiles conv2 (32 input channels) on a real GPU: the tuned tile where the limits hold it, else the registry one', () => {
    // 64 x 32 channels, 4 x 16 pixels: 4 * (4*16*64 + 32*6*18) bytes = 29.8 KB, 512 invocations
    expect(conv2.tiles(GPU_TUNING, limits(32768, 1024))).toEqual({ TCO: 64, TCI: 32, ROWS: 4, TW: 16 });
    expect(conv2.tiles(GPU_TUNING, limits(30720, 512))).toEqual({ TCO: 64, TCI: 32, ROWS: 4, TW: 16 });
    // WebGPU's default limits (16 KB, 256 invocations): 64 x 16 channels, 2 x 16 pixels, 12.8 KB
    expect(conv2.tiles(GPU_TUNING, limits(16384))).toEqual({ TCO: 64, TCI: 16, ROWS: 2, TW: 16 });
    expect(conv2.tiles(GPU_TUNING, limits(32768, 256))).toEqual({ TCO: 64, TCI: 16, ROWS: 2, TW: 16 });
  });

  it('keeps the register kernel for conv1 (3 input channels), on SwiftShader, and where the tile does not fit', () => {
    expect(conv1.tiles(GPU_TUNING, limits(16384))).toBeNull();
    expect(conv2.tiles(SOFTWARE_TUNING, limits(16384))).toBeNull();
    expect(conv2.tiles(GPU_TUNING, limits(8192))).toBeNull();
    expect(conv2.tiles(GPU_TUNING, limits(16384, 128))).toBeNull();
    const big = { ...GPU_TUNING, kernels: { ...GPU_TUNING.kernels, conv2d_backward_weight_tiled: { ROWS: 8 } } };
    // 8*16*64 + 16*10*18 floats = 44.8 KB: the registry's tile where that does not fit
    expect(conv2.tiles(big, limits(16384))).toEqual({ TCO: 64, TCI: 16, ROWS: 2, TW: 16 });
    expect(conv2.tiles(big, limits(65536))).toEqual({ TCO: 64, TCI: 16, ROWS: 8, TW: 16 });
  });

  it('splits the reduction into pixel tiles or image rows, capped by the tuning, with workspace for both', () => {
    const tiles = conv2.tiles(GPU_TUNING);
    // batch 512: 512 * (16/4) * (16/16) = 2048 tiles; one workgroup of 512 invocations per slice
    expect(conv2.splits(512, GPU_TUNING, tiles)).toBe(128);
    expect(conv2.splits(512, GPU_TUNING, null)).toBe(128); // 65536 / (32 * 16) invocations
    expect(conv2.splits(2, GPU_TUNING, tiles)).toBe(8); // only 2 * 4 tiles
    // the registry's tile (the fallback): 2 * 8 tiles, so the workspace holds 16 or the rows' 32
    expect(conv2.splits(2, GPU_TUNING, conv2.tiles(GPU_TUNING, limits(16384)))).toBe(16);
    // 256 threads target: 128 per slice for the wide kernel (8x2 channels each), 512 for 4x1.
    expect(conv2.splits(2, SOFTWARE_TUNING, null)).toBe(2);
    expect(conv2.splits(2, { ...SOFTWARE_TUNING, convWeight: 'registers' }, null)).toBe(1);
    expect(conv2.workspaceBytes(2, GPU_TUNING)).toBe(32 * 64 * (32 * 9 + 1) * 4); // the rows: 2 * 16
  });
});
