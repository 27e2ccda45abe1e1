// Shards (a worker's own records, loaded chunk by chunk; ranks sharing a device share the reads), batches, the CPU normalisation reference
// (against values PyTorch printed) and the crop/flip augmentation on a hand-checked image.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Augmenter, augmentSeed, cropFlip } from '../../src/data/augment.ts';
import { batch, batchPositions } from '../../src/data/batch.ts';
import { SharedChunkReads } from '../../src/data/chunk-reads.ts';
import { RECORD_BYTES } from '../../src/data/cifar.ts';
import { openDataset, type Dataset } from '../../src/data/dataset.ts';
import { importFiles } from '../../src/data/import.ts';
import { CIFAR10_MEAN, CIFAR10_STD, normalize } from '../../src/data/normalize.ts';
import { loadShard } from '../../src/data/shard.ts';
import { FileDatasetStore } from '../../src/data/store-file-node.ts';
import { bytesSource } from '../../src/data/synthetic.ts';
import { CpuGenerator } from '../../src/random/generator.ts';
import { makeRecords } from '../helpers/cifar-fixture.ts';

let dir: string;
let ds: Dataset;
const train = makeRecords(23, 5); // 23 records in chunks of 5: 5,5,5,5,3
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'webddp-shard-'));
  const store = await FileDatasetStore.open(dir);
  await importFiles([bytesSource('data_batch_1.bin', train)], store, { recordsPerChunk: 5 });
  ds = await openDataset(store, 'cifar10');
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const image = (i: number) => train.subarray(i * RECORD_BYTES + 1, (i + 1) * RECORD_BYTES);

describe('loadShard', () => {
  it('returns exactly the requested records, in the given order, repeats included, reading only the chunks needed', async () => {
    const indices = Int32Array.from([22, 0, 7, 7, 13, 0]); // chunks 4, 0, 1, 2: never chunk 3
    const reads: number[] = [];
    const shard = await loadShard(ds, 'train', indices, { onChunk: (done, total) => reads.push(done, total) });
    expect(reads).toEqual([1, 4, 2, 4, 3, 4, 4, 4]);
    expect([...shard.indices]).toEqual([...indices]);
    expect(shard.images.byteLength).toBe(6 * 3072);
    indices.forEach((d, p) => {
      expect(shard.labels[p]).toBe(train[d * RECORD_BYTES]);
      expect(Buffer.from(shard.images.subarray(p * 3072, (p + 1) * 3072)).equals(image(d))).toBe(true);
    });
  });

  it('ranks sharing a device: overlapping loads read each chunk once, and keep nothing once they end', async () => {
    const shared = new SharedChunkReads();
    const rank0 = Int32Array.from([0, 6, 12, 18, 22]); // chunks 0-4
    const rank1 = Int32Array.from([21, 1, 7, 13, 19, 2]); // chunks 4, 0, 1, 2, 3
    const [a, b] = await Promise.all([
      loadShard(ds, 'train', rank0, { shared }),
      loadShard(ds, 'train', rank1, { shared }),
    ]);
    expect(shared.storeReads).toBe(5); // not 10
    for (const [shard, indices] of [
      [a, rank0],
      [b, rank1],
    ] as const)
      indices.forEach((d, p) => {
        expect(shard.labels[p]).toBe(train[d * RECORD_BYTES]);
        expect(Buffer.from(shard.images.subarray(p * 3072, (p + 1) * 3072)).equals(image(d))).toBe(true);
      });
    // the next epoch's load (nothing overlapping it) reads its chunks from the store again
    await loadShard(ds, 'train', Int32Array.from([3, 4]), { shared });
    expect(shared.storeReads).toBe(6);
  });

  it('rejects an index outside the split, naming the position', async () => {
    await expect(loadShard(ds, 'train', Int32Array.from([0, 23]))).rejects.toThrow(
      "loadShard: position 1 asks for train record 23, but 'cifar10' train has 23 records",
    );
    await expect(loadShard(ds, 'test', Int32Array.from([0]))).rejects.toThrow(/test has 0 records/);
  });
});

describe('batch', () => {
  it('gathers positions into NCHW bytes and int32 labels', async () => {
    const shard = await loadShard(ds, 'train', Int32Array.from([3, 9, 4, 20]));
    const b = batch(shard, batchPositions(shard, 1, 3)); // positions [3]: the last, partial batch
    expect(b.labels).toEqual(Int32Array.from([train[20 * RECORD_BYTES] ?? -1]));
    expect(Buffer.from(b.images).equals(image(20))).toBe(true);
    const full = batch(shard, [2, 0]);
    expect([...full.labels]).toEqual([train[4 * RECORD_BYTES], train[3 * RECORD_BYTES]]);
    expect(Buffer.from(full.images.subarray(3072)).equals(image(3))).toBe(true);
    expect(() => batch(shard, [4])).toThrow("batch: position 4 (batch item 0) is outside the shard's 4 positions");
  });
});

describe('normalize', () => {
  it('matches PyTorch ToTensor + Normalize in float32 (values printed by torch 1.13)', () => {
    const img = new Uint8Array(3072);
    [0, 1, 128, 255].forEach((v, k) => {
      img[k] = v;
      img[1024 + k] = v;
      img[2048 + k] = v;
    });
    const out = normalize(img);
    expect([...out.subarray(0, 4)]).toEqual([
      -2.429065704345703, -2.4096808433532715, 0.0522037111222744, 2.5140879154205322,
    ]);
    expect([...out.subarray(1024, 1028)]).toEqual([
      -2.418254852294922, -2.398587942123413, 0.09910139441490173, 2.596790313720703,
    ]);
    expect([...out.subarray(2048, 2052)]).toEqual([
      -2.22139310836792, -2.2018826007843018, 0.275924414396286, 2.7537312507629395,
    ]);
    expect(CIFAR10_MEAN).toEqual([0.4914, 0.4822, 0.4465]);
    expect(CIFAR10_STD).toEqual([0.2023, 0.1994, 0.201]);
    expect(() => normalize(new Uint8Array(100))).toThrow(RangeError);
  });
});

describe('augmentation', () => {
  // A hand-checkable image: R(0,0) = 200 and G(5,7) = 100, everything else 0.
  const src = new Uint8Array(3072);
  src[0] = 200;
  src[1024 + 5 * 32 + 7] = 100;
  const at = (img: Uint8Array, c: number, y: number, x: number) => img[c * 1024 + y * 32 + x];
  const nonzero = (img: Uint8Array) =>
    [...img.keys()]
      .filter((i) => img[i] !== 0)
      .map((i) => [Math.floor(i / 1024), Math.floor((i % 1024) / 32), i % 32, img[i]]);

  it('crops with 4-pixel zero padding and flips exactly as torchvision would', () => {
    const dst = new Uint8Array(3072);
    cropFlip(src, dst, { top: 4, left: 4, flip: false });
    expect(Buffer.from(dst).equals(src)).toBe(true); // centre crop: identity
    cropFlip(src, dst, { top: 0, left: 0, flip: false }); // shift down-right by 4
    expect(nonzero(dst)).toEqual([
      [0, 4, 4, 200],
      [1, 9, 11, 100],
    ]);
    cropFlip(src, dst, { top: 8, left: 8, flip: false }); // shift up-left by 4: R(0,0) falls off
    expect(nonzero(dst)).toEqual([[1, 1, 3, 100]]);
    cropFlip(src, dst, { top: 4, left: 4, flip: true });
    expect(nonzero(dst)).toEqual([
      [0, 0, 31, 200],
      [1, 5, 24, 100],
    ]);
    cropFlip(src, dst, { top: 4, left: 0, flip: true }); // crop then flip: x -> 31 - (x + 4)
    expect(at(dst, 0, 0, 27)).toBe(200);
    expect(at(dst, 1, 5, 20)).toBe(100);
  });

  it('draws torch-style from a CpuGenerator seeded by (seed, rank, epoch): deterministic, and different per rank and epoch', () => {
    const g = new CpuGenerator(augmentSeed(42, 1, 3));
    const expected = Array.from({ length: 50 }, () => ({
      top: g.random() % 9,
      left: g.random() % 9,
      flip: (g.random() & 0xffffff) * 2 ** -24 < 0.5,
    }));
    const a = new Augmenter({ seed: 42, rank: 1, epoch: 3 });
    expect(Array.from({ length: 50 }, () => a.next())).toEqual(expected);
    const seq = (o: { seed: number; rank: number; epoch: number }) =>
      JSON.stringify(
        Array.from(
          { length: 20 },
          (() => {
            const x = new Augmenter(o);
            return () => x.next();
          })(),
        ),
      );
    expect(seq({ seed: 42, rank: 1, epoch: 3 })).toBe(seq({ seed: 42, rank: 1, epoch: 3 }));
    expect(seq({ seed: 42, rank: 0, epoch: 3 })).not.toBe(seq({ seed: 42, rank: 1, epoch: 3 }));
    expect(seq({ seed: 42, rank: 1, epoch: 4 })).not.toBe(seq({ seed: 42, rank: 1, epoch: 3 }));
    expect(new Set([augmentSeed(0, 0, 0), augmentSeed(0, 0, 1), augmentSeed(0, 1, 0), augmentSeed(1, 0, 0)]).size).toBe(
      4,
    );
  });

  it('batch(shard, positions, augmenter) applies one draw per image in order; off by default', async () => {
    const shard = await loadShard(ds, 'train', Int32Array.from([1, 2, 3]));
    const plain = batch(shard, [0, 1, 2]);
    expect(Buffer.from(plain.images.subarray(0, 3072)).equals(image(1))).toBe(true);
    const aug = batch(shard, [0, 1, 2], new Augmenter({ seed: 9, rank: 0, epoch: 0 }));
    const ref = new Augmenter({ seed: 9, rank: 0, epoch: 0 });
    for (let i = 0; i < 3; i++) {
      const want = new Uint8Array(3072);
      cropFlip(image(i + 1), want, ref.next());
      expect(Buffer.from(aug.images.subarray(i * 3072, (i + 1) * 3072)).equals(want)).toBe(true);
    }
    expect(aug.labels).toEqual(plain.labels);
    const onlyFlip = new Augmenter({ seed: 9, rank: 0, epoch: 0, crop: false });
    expect(Array.from({ length: 10 }, () => onlyFlip.next()).every((d) => d.top === 4 && d.left === 4)).toBe(true);
  });
});
