// Dawn's instance flags: WEBDDP_DAWN_FLAGS as given, with the half-precision toggles merged into its
// enable-dawn-features list (Dawn keeps only the last flag of a kind), and which layers take the
// subgroup-matrix kernels (an fp16 run, the tuning naming the product, a device that has them).
import { afterEach, describe, expect, it } from 'vitest';
import { dawnFlags, HALF_TOGGLES } from '../../src/gpu/device-node.ts';
import { GPU_TUNING, SOFTWARE_TUNING } from '../../src/gpu/tuning.ts';
import { useHalfMatrix } from '../../src/nn/layers/linear-tiles.ts';

const saved = process.env.WEBDDP_DAWN_FLAGS;
afterEach(() => {
  if (saved === undefined) delete process.env.WEBDDP_DAWN_FLAGS;
  else process.env.WEBDDP_DAWN_FLAGS = saved;
});

describe('dawnFlags', () => {
  it('adds the toggles as one enable-dawn-features flag, merged with one already given', () => {
    delete process.env.WEBDDP_DAWN_FLAGS;
    expect(dawnFlags()).toEqual([]);
    expect(dawnFlags(HALF_TOGGLES)).toEqual(['enable-dawn-features=vulkan_enable_f16_on_nvidia,allow_unsafe_apis']);
    process.env.WEBDDP_DAWN_FLAGS = 'disable-dawn-features=timestamp_quantization enable-dawn-features=dump_shaders';
    expect(dawnFlags()).toEqual(['disable-dawn-features=timestamp_quantization', 'enable-dawn-features=dump_shaders']);
    expect(dawnFlags(HALF_TOGGLES)).toEqual([
      'disable-dawn-features=timestamp_quantization',
      'enable-dawn-features=dump_shaders,vulkan_enable_f16_on_nvidia,allow_unsafe_apis',
    ]);
  });
});

describe('useHalfMatrix', () => {
  it('only fp16 parameters, a named product, long sums and a device with the matrices', () => {
    expect(useHalfMatrix('linear-forward', 4096, GPU_TUNING, 'f16', true)).toBe(true);
    expect(useHalfMatrix('linear-forward', 4096, GPU_TUNING, 'f32', true)).toBe(false);
    expect(useHalfMatrix('linear-forward', 4096, GPU_TUNING, 'bf16', true)).toBe(false);
    expect(useHalfMatrix('linear-forward', 4096, GPU_TUNING, 'f16', false)).toBe(false);
    expect(useHalfMatrix('linear-forward', 128, GPU_TUNING, 'f16', true)).toBe(false);
    expect(useHalfMatrix('conv-forward', 288, GPU_TUNING, 'f16', true)).toBe(false);
    expect(useHalfMatrix('conv-forward', 288, { ...GPU_TUNING, halfMatrix: ['conv-forward'] }, 'f16', true)).toBe(true);
    expect(useHalfMatrix('linear-forward', 4096, SOFTWARE_TUNING, 'f16', true)).toBe(false);
  });
});
