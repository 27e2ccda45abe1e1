// nccl-tests bandwidth definitions (github.com/NVIDIA/nccl-tests, doc/PERFORMANCE.md): algbw = S/t, busbw = algbw x bus factor.
import { describe, expect, it } from 'vitest';
import { bandwidth, busFactor, formatBandwidth } from '../../src/comm/busbw.ts';

describe('busbw', () => {
  it('uses 2(W-1)/W for all-reduce, (W-1)/W for reduce-scatter and all-gather, 1 for broadcast', () => {
    expect(busFactor('allReduce', 4)).toBe(1.5);
    expect(busFactor('allReduce', 1)).toBe(0);
    expect(busFactor('allReduce', 8)).toBe(1.75);
    expect(busFactor('reduceScatter', 4)).toBe(0.75);
    expect(busFactor('allGather', 2)).toBe(0.5);
    expect(busFactor('broadcast', 8)).toBe(1);
    expect(() => busFactor('allReduce', 0)).toThrow(RangeError);
  });

  it('computes algbw and busbw in GB/s (1e9 bytes) and formats one line', () => {
    const m = bandwidth('allReduce', 2_180_392, 0.002, 4);
    expect(m.algbwGBs).toBeCloseTo(1.090196, 6);
    expect(m.busbwGBs).toBeCloseTo(1.635294, 6);
    expect(formatBandwidth(m)).toBe('allReduce W=4  2.18 MB  2.000 ms  algbw 1.09 GB/s  busbw 1.64 GB/s');
    expect(() => bandwidth('allReduce', 1, 0, 2)).toThrow(RangeError);
  });
});
