// DDP bucket assignment and DataParallel / BalancedDataParallel batch splits against PyTorch's and
// transformer-xl's rules (worked examples of their code).
import { describe, expect, it } from 'vitest';
import { computeBuckets } from '../../src/parallel/ddp/buckets.ts';
import { balancedChunks, dataParallelChunks } from '../../src/parallel/data-parallel/chunks.ts';
import { simpleCnnSpec, type ParamSpec } from '../../src/nn/spec.ts';

describe('DDP buckets', () => {
  const spec = simpleCnnSpec(1);
  it('SimpleCNN at the default cap: a first bucket closed past 1 MiB (fc2, fc1), then the convolutions', () => {
    const b = computeBuckets(spec.params);
    expect(b.map((x) => x.params.map((p) => p.name))).toEqual([
      ['fc2.bias', 'fc2.weight', 'fc1.bias', 'fc1.weight'],
      ['conv2.bias', 'conv2.weight', 'conv1.bias', 'conv1.weight'],
    ]);
  });

  it('buckets are contiguous, disjoint and cover the arena, for any cap', () => {
    for (const cap of [0.001, 0.01, 0.1, 1, 25]) {
      const b = computeBuckets(spec.params, cap);
      const ranges = b.map((x) => [x.offset, x.offset + x.count] as const).sort((p, q) => p[0] - q[0]);
      expect(ranges[0]?.[0]).toBe(0);
      for (let i = 1; i < ranges.length; i++) expect(ranges[i]?.[0]).toBe(ranges[i - 1]?.[1]);
      expect(ranges[ranges.length - 1]?.[1]).toBe(spec.total);
      for (const x of b) expect(x.count).toBe(x.params.reduce((a, p) => a + p.size, 0));
    }
  });

  it('closes at >= the limit (PyTorch measured: MLP 8->300->1000->4 rebuilt into 1220016 + 10800 bytes)', () => {
    const shapes: [string, number][] = [
      ['0.w', 2400],
      ['0.b', 300],
      ['1.w', 300000],
      ['1.b', 1000],
      ['2.w', 4000],
      ['2.b', 4],
    ];
    let offset = 0;
    const params: ParamSpec[] = shapes.map(([name, size]) => {
      const p = { name, shape: [size], offset, size, fanIn: 1 };
      offset += size;
      return p;
    });
    const b = computeBuckets(params);
    expect(b.map((x) => x.count * 4)).toEqual([1220016, 10800]);
    expect(b[0]?.params.map((p) => p.name)).toEqual(['2.b', '2.w', '1.b', '1.w']);
  });

  it('rejects a cap <= 0', () => {
    expect(() => computeBuckets(spec.params, 0)).toThrow(RangeError);
  });
});

describe('DataParallel chunks (torch.chunk)', () => {
  it.each([
    [5, 4, [2, 2, 1, 0]],
    [10, 4, [3, 3, 3, 1]],
    [10, 3, [4, 4, 2]],
    [129, 4, [33, 33, 33, 30]],
    [8, 1, [8]],
    [2, 4, [1, 1, 0, 0]],
  ])('batch %i over %i devices -> %j', (b, w, sizes) => {
    expect(dataParallelChunks(b, w)).toEqual(sizes);
  });
});

describe('BalancedDataParallel chunks', () => {
  it.each([
    [32, 3, 4, [4, 14, 14]],
    [33, 3, 4, [4, 15, 14]],
    [32, 3, 0, [0, 16, 16]],
    [32, 3, 20, [11, 11, 10]],
  ])('batch %i over %i devices with gpu0_bsz %i -> %j', (b, w, g, sizes) => {
    expect(balancedChunks(b, w, g)).toEqual(sizes);
  });
});
