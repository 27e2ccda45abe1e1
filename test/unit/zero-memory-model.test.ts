// ZeRO's per-rank model-state formulas against the paper's own numbers (section 5 and figure 1)
// and against what webddp allocates for SimpleCNN (fp32, Adam).
import { describe, expect, it } from 'vitest';
import {
  optimizerBytesPerParam,
  parseParamCount,
  zeroModelStates,
  type ZeroStage,
} from '../../src/parallel/zero/memory-model.ts';

const GB = 1e9;

describe('ZeRO memory model', () => {
  it('gives the paper’s 7.5B-parameter example on 64 GPUs: 120, 31.4, 16.6 and 1.9 GB per GPU', () => {
    const totals = ([0, 1, 2, 3] as ZeroStage[]).map((s) => zeroModelStates(7.5e9, 64, s, 'fp16', 'adam').total / GB);
    expect(totals.map((x) => Number(x.toFixed(1)))).toEqual([120, 31.4, 16.6, 1.9]);
  });

  it('gives figure 1’s 1M parameters on 4 GPUs: 16, 7, 5.5 and 4 MB', () => {
    const totals = ([0, 1, 2, 3] as ZeroStage[]).map((s) => zeroModelStates(1e6, 4, s, 'fp16', 'adam').total / 1e6);
    expect(totals).toEqual([16, 7, 5.5, 4]);
  });

  it('uses K = 12 for mixed-precision Adam and the fp32 buffers alone in fp32', () => {
    expect(optimizerBytesPerParam('adam', 'fp16')).toBe(12);
    expect(optimizerBytesPerParam('adam', 'fp32')).toBe(8);
    expect(optimizerBytesPerParam('sgd-momentum', 'fp32')).toBe(4);
    expect(optimizerBytesPerParam('sgd', 'fp32')).toBe(0);
    expect(optimizerBytesPerParam('sgd', 'fp16')).toBe(4);
  });

  it('matches SimpleCNN in fp32 with Adam: DDP keeps every state whole, ZeRO-3 on 4 ranks a quarter of each', () => {
    const p = 545_098;
    expect(zeroModelStates(p, 4, 0, 'fp32', 'adam')).toEqual({
      parameters: 4 * p,
      gradients: 4 * p,
      optimizer: 8 * p,
      total: 16 * p,
    });
    const shard = Math.ceil(p / 4);
    expect(zeroModelStates(p, 4, 1, 'fp32', 'adam').optimizer).toBe(8 * shard);
    expect(zeroModelStates(p, 4, 2, 'fp32', 'adam').gradients).toBe(4 * shard);
    expect(zeroModelStates(p, 4, 3, 'fp32', 'adam').parameters).toBe(4 * shard);
  });

  it('counts bf16 mixed precision as fp16: 2-byte parameters and gradients, K = 12 with Adam', () => {
    for (const s of [0, 1, 2, 3] as ZeroStage[])
      expect(zeroModelStates(7.5e9, 64, s, 'bf16', 'adam')).toEqual(zeroModelStates(7.5e9, 64, s, 'fp16', 'adam'));
    expect(optimizerBytesPerParam('adam', 'bf16')).toBe(12);
  });

  it('puts 7B with Adam in fp16 on 4 x 80 GB at 112 GB for DDP and 28 GB for ZeRO-3', () => {
    expect(zeroModelStates(7e9, 4, 0, 'fp16', 'adam').total / GB).toBe(112);
    expect(zeroModelStates(7e9, 4, 3, 'fp16', 'adam').total / GB).toBe(28);
  });

  it('reads parameter counts with K, M, B and T suffixes and refuses anything else', () => {
    expect(parseParamCount('7B')).toBe(7e9);
    expect(parseParamCount(' 1.3e9 ')).toBe(1.3e9);
    expect(parseParamCount('350m')).toBe(350e6);
    expect(parseParamCount('545098')).toBe(545_098);
    expect(parseParamCount('1.5T')).toBe(1.5e12);
    for (const bad of ['', 'seven', '7X', '-3', '0']) expect(parseParamCount(bad)).toBeNull();
  });

  it('refuses a bad rank count by name', () => {
    expect(() => zeroModelStates(1e6, 0, 1, 'fp32', 'adam')).toThrow(/ranks must be a whole number >= 1 \(got 0\)/);
  });
});
