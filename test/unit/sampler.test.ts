// randperm and DistributedSampler against every record of test/fixtures/sampler.json (PyTorch
// 2.11), worked examples of DistributedSampler's arithmetic, and batching.
import { describe, expect, it } from 'vitest';
import { CpuGenerator, randperm } from '../../src/random/generator.ts';
import { batchAt, batchIndices, DistributedSampler, numBatches } from '../../src/data/sampler.ts';
import { fixture, pyListSha256, type SamplerRecord } from '../helpers/sampler-fixture.ts';

function samplerFor(r: SamplerRecord): DistributedSampler {
  const s = new DistributedSampler(r.n, {
    numReplicas: r.num_replicas,
    rank: r.rank,
    shuffle: r.shuffle,
    seed: r.seed,
    dropLast: r.drop_last,
  });
  s.setEpoch(r.epoch);
  return s;
}

describe('sampler.json fixture', () => {
  it('has the expected record counts (30 randperm, 720 sampler)', () => {
    expect(fixture.randperm.length).toBe(30);
    expect(fixture.sampler.length).toBe(720);
  });

  it('the hash helper reproduces json.dumps formatting', () => {
    // hashlib.sha256(json.dumps([0]).encode()) from the n = 1 records.
    const one = fixture.randperm.find((r) => r.n === 1);
    expect(one?.sha256).toBe(pyListSha256([0]));
  });
});

describe('randperm vs torch.randperm(n, generator=Generator().manual_seed(seed))', () => {
  it.each(fixture.randperm.map((r) => [r.n, r.seed, r] as const))('n=%i seed=%i', (_n, _seed, r) => {
    const p = randperm(r.n, new CpuGenerator(r.seed));
    expect(p.length).toBe(r.n);
    if (r.perm) expect(Array.from(p)).toEqual(r.perm);
    expect(Array.from(p.subarray(0, r.head.length))).toEqual(r.head);
    expect(pyListSha256(p)).toBe(r.sha256);
  });
});

describe('DistributedSampler vs torch (every sampler.json record)', () => {
  const groups = new Map<string, SamplerRecord[]>();
  for (const r of fixture.sampler) {
    const key = `n=${r.n} R=${r.num_replicas} shuffle=${r.shuffle} drop_last=${r.drop_last}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  it.each([...groups.entries()])('%s (seeds, epochs, ranks)', (_key, records) => {
    for (const r of records) {
      const s = samplerFor(r);
      const idx = s.indices();
      const where = `seed ${r.seed} epoch ${r.epoch} rank ${r.rank}`;
      expect(s.length, where).toBe(r.len);
      expect(idx.length, where).toBe(r.len);
      expect(s.totalSize, where).toBe(r.len * r.num_replicas);
      if (r.indices) expect(Array.from(idx), where).toEqual(r.indices);
      expect(Array.from(idx.subarray(0, r.head.length)), where).toEqual(r.head);
      expect(pyListSha256(idx), where).toBe(r.sha256);
    }
  });

  it('covers full lists for n <= 11 and hashes for n = 50000', () => {
    expect(fixture.sampler.filter((r) => r.indices).length).toBe(480);
    expect(fixture.sampler.filter((r) => r.n === 50000).length).toBe(240);
  });
});

describe('DistributedSampler worked examples', () => {
  const ranks = (n: number, R: number, o: { shuffle?: boolean; dropLast?: boolean; seed?: number } = {}) =>
    Array.from({ length: R }, (_, rank) =>
      Array.from(new DistributedSampler(n, { numReplicas: R, rank, ...o }).indices()),
    );

  it('N=10, R=3, seed 0, epoch 0: pads with [4, 1] from the start of the permutation', () => {
    expect(ranks(10, 3)).toEqual([
      [4, 5, 0, 2],
      [1, 3, 8, 4],
      [7, 9, 6, 1],
    ]);
  });

  it('N=10, R=3, drop_last: truncates the tail of the shuffled list', () => {
    expect(ranks(10, 3, { dropLast: true })).toEqual([
      [4, 5, 0],
      [1, 3, 8],
      [7, 9, 6],
    ]);
  });

  it('N=2, R=5, no shuffle: the list repeats whole as often as needed', () => {
    expect(ranks(2, 5, { shuffle: false })).toEqual([[0], [1], [0], [1], [0]]);
  });

  it('N=2, R=5, drop_last: every rank gets nothing (Python ceil(-0.6) = 0)', () => {
    const s = new DistributedSampler(2, { numReplicas: 5, rank: 0, dropLast: true });
    expect(Object.is(s.length, 0)).toBe(true);
    expect(s.totalSize).toBe(0);
    expect(Array.from(s.indices())).toEqual([]);
  });

  it('N=50000 seed 0: R=4 rank 0 head, R=3 rank 2 wraps to the first index, epoch 1 differs', () => {
    const r4 = new DistributedSampler(50000, { numReplicas: 4, rank: 0 });
    expect(Array.from(r4.indices().subarray(0, 10))).toEqual([
      36044, 6091, 24681, 23932, 24936, 43846, 4480, 18517, 42979, 15934,
    ]);
    expect(r4.length).toBe(12500);
    const r3 = new DistributedSampler(50000, { numReplicas: 3, rank: 2 }).indices();
    expect(Array.from(r3.subarray(-2))).toEqual([42128, 36044]);
    r4.setEpoch(1);
    expect(r4.epoch).toBe(1);
    expect(Array.from(r4.indices().subarray(0, 3))).toEqual([45845, 41303, 12631]);
  });

  it('an empty dataset gives empty shards', () => {
    expect(Array.from(new DistributedSampler(0, { numReplicas: 3, rank: 1 }).indices())).toEqual([]);
  });

  it('the same order every epoch unless setEpoch is called', () => {
    const s = new DistributedSampler(100, { numReplicas: 2, rank: 1, seed: 7 });
    expect(Array.from(s.indices())).toEqual(Array.from(s.indices()));
  });
});

describe('DistributedSampler argument validation', () => {
  it.each([
    [10, { numReplicas: 4, rank: 4 }, /invalid rank 4.*\[0, 3\]/],
    [10, { numReplicas: 4, rank: -1 }, /invalid rank -1/],
    [10, { numReplicas: 4, rank: 1.5 }, /invalid rank 1.5/],
    [10, { numReplicas: 0, rank: 0 }, /numReplicas must be a positive integer \(got 0\)/],
    [10, { numReplicas: 2.5, rank: 0 }, /numReplicas must be a positive integer \(got 2.5\)/],
    [-1, { numReplicas: 1, rank: 0 }, /dataset length must be an integer .* \(got -1\)/],
    [3.5, { numReplicas: 1, rank: 0 }, /dataset length must be an integer .* \(got 3.5\)/],
    [2 ** 31, { numReplicas: 1, rank: 0 }, /dataset length/],
    [10, { numReplicas: 1, rank: 0, seed: 0.5 }, /seed must be an integer \(got 0.5\)/],
    [10, { numReplicas: 1, rank: 0, seed: 1n << 64n }, /seed 18446744073709551616 is outside/],
  ] as const)('n=%s %o', (n, opts, msg) => {
    expect(() => new DistributedSampler(n, opts)).toThrow(RangeError);
    expect(() => new DistributedSampler(n, opts)).toThrow(msg);
  });

  it('rejects a non-integer epoch and seed + epoch outside the seed range', () => {
    const s = new DistributedSampler(10, { numReplicas: 1, rank: 0, seed: (1n << 64n) - 1n });
    expect(() => s.setEpoch(0.5)).toThrow(/epoch must be an integer \(got 0.5\)/);
    expect(() => s.setEpoch(1)).toThrow(/seed \+ epoch = 18446744073709551616 is outside/);
    expect(s.epoch).toBe(0);
    s.setEpoch(-1); // 2^64 - 2 is a valid seed, as in torch
    expect(s.indices().length).toBe(10);
  });

  it('accepts big seeds like torch: 2^40 + 7 behaves as its low 32 bits', () => {
    const a = new DistributedSampler(1000, { numReplicas: 2, rank: 0, seed: 2 ** 40 + 7 }).indices();
    const b = new DistributedSampler(1000, { numReplicas: 2, rank: 0, seed: 7 }).indices();
    expect(Array.from(a)).toEqual(Array.from(b));
  });
});

describe('batching over sampler indices (DataLoader + BatchSampler)', () => {
  const idx = Int32Array.from([9, 8, 7, 6, 5, 4, 3]);

  it('consecutive slices, the last one short unless dropLast', () => {
    expect(batchIndices(idx, 3).map((b) => Array.from(b))).toEqual([[9, 8, 7], [6, 5, 4], [3]]);
    expect(batchIndices(idx, 3, true).map((b) => Array.from(b))).toEqual([
      [9, 8, 7],
      [6, 5, 4],
    ]);
    expect(batchIndices(idx, 7).map((b) => Array.from(b))).toEqual([[9, 8, 7, 6, 5, 4, 3]]);
    expect(batchIndices(idx, 8, true)).toEqual([]);
    expect(batchIndices(new Int32Array(0), 4)).toEqual([]);
  });

  it('batches are copies, not views of the sampler output', () => {
    const first = batchIndices(idx, 2)[0];
    expect(first?.buffer).not.toBe(idx.buffer);
  });

  it('numBatches is len(DataLoader) and batchAt(i) equals batchIndices()[i]', () => {
    expect(numBatches(7, 3)).toBe(3);
    expect(numBatches(7, 3, true)).toBe(2);
    expect(numBatches(6, 3, true)).toBe(2);
    expect(numBatches(0, 3)).toBe(0);
    expect(numBatches(12500, 128)).toBe(98);
    const all = batchIndices(idx, 3);
    for (let i = 0; i < all.length; i++) expect(Array.from(batchAt(idx, 3, i))).toEqual(Array.from(all[i] ?? []));
  });

  it('rejects bad batch sizes and batch indices', () => {
    expect(() => numBatches(7, 0)).toThrow(/batch size must be a positive integer \(got 0\)/);
    expect(() => batchIndices(idx, 1.5)).toThrow(RangeError);
    expect(() => numBatches(-1, 2)).toThrow(/number of samples/);
    expect(() => batchAt(idx, 3, 3)).toThrow(/batch index must be an integer in \[0, 2\] \(got 3\)/);
    expect(() => batchAt(idx, 3, 2, true)).toThrow(/\[0, 1\] \(got 2\)/);
  });
});
