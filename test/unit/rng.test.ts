// The CPU generator and randperm against values PyTorch printed.
import { describe, expect, it } from 'vitest';
import { CpuGenerator, randperm, seedToU64 } from '../../src/random/generator.ts';

describe('CpuGenerator (at::mt19937)', () => {
  it('matches std::mt19937 for seed 5, and only the low 32 bits of the seed matter', () => {
    const g = new CpuGenerator(5);
    expect([g.random(), g.random(), g.random()]).toEqual([953453411, 236996814, 3739766767]);
    const h = new CpuGenerator(5n + (1n << 32n));
    expect([h.random(), h.random(), h.random()]).toEqual([953453411, 236996814, 3739766767]);
  });

  it('random64 takes the high word first: torch.manual_seed(0) int64 random_ draws', () => {
    const g = new CpuGenerator(0);
    const mask = (1n << 63n) - 1n;
    expect([g.random64() & mask, g.random64() & mask, g.random64() & mask]).toEqual([
      900450186894289455n,
      3969543146641149120n,
      1895649597198586619n,
    ]);
  });

  it("maps negative seeds like torch (two's complement) and rejects out-of-range ones", () => {
    expect(seedToU64(-1)).toBe((1n << 64n) - 1n);
    expect(() => seedToU64(1n << 64n)).toThrow(RangeError);
  });
});

describe('randperm', () => {
  it('matches torch.randperm(10) for seeds 0 and 42', () => {
    expect([...randperm(10, new CpuGenerator(0))]).toEqual([4, 1, 7, 5, 3, 9, 0, 8, 6, 2]);
    expect([...randperm(10, new CpuGenerator(42))]).toEqual([2, 6, 1, 8, 4, 5, 0, 9, 3, 7]);
  });
});
