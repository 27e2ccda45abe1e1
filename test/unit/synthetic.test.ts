// The built-in synthetic dataset: deterministic bytes per seed, balanced labels, valid CIFAR
// records, stored through the normal import path (re-running is a no-op).
import { mkdtemp, rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RECORD_BYTES, parseCifarBatch } from '../../src/data/cifar.ts';
import { openDataset } from '../../src/data/dataset.ts';
import { FileDatasetStore } from '../../src/data/store-file-node.ts';
import { SYNTHETIC_CLASSES, generateRecords, generateSynthetic, importSynthetic } from '../../src/data/synthetic.ts';
import { readSplit } from '../helpers/cifar-fixture.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('synthetic dataset', { timeout: 60_000 }, () => {
  it('is deterministic: the same seed gives the same bytes, another seed different ones', () => {
    const a = generateSynthetic({ seed: 7, train: 300, test: 50 });
    const b = generateSynthetic({ seed: 7, train: 300, test: 50 });
    expect(sha(a.train)).toBe(sha(b.train));
    expect(sha(a.test)).toBe(sha(b.test));
    expect(sha(generateSynthetic({ seed: 8, train: 300, test: 50 }).train)).not.toBe(sha(a.train));
    expect(sha(a.test)).not.toBe(sha(a.train.subarray(0, a.test.byteLength)));
  });

  it('has exactly balanced labels and valid CIFAR records; the first records are pinned', () => {
    const train = generateRecords(1000, 0);
    expect(parseCifarBatch(train, 'synthetic').count).toBe(1000);
    const counts = new Array<number>(10).fill(0);
    for (let i = 0; i < 1000; i++) counts[train[i * RECORD_BYTES] ?? 0]! += 1;
    expect(counts).toEqual(new Array<number>(10).fill(100));
    const odd = generateRecords(1003, 0);
    const oddCounts = new Array<number>(10).fill(0);
    for (let i = 0; i < 1003; i++) oddCounts[odd[i * RECORD_BYTES] ?? 0]! += 1;
    expect(Math.max(...oddCounts) - Math.min(...oddCounts)).toBeLessThanOrEqual(1);
    // Pin the generator's output so an accidental change is noticed (update deliberately).
    expect(sha(generateRecords(20, 0))).toMatchInlineSnapshot(
      `"c1aeac861ea6846edf7ab8369bbb6a260620150d9b8dede898ce3c52ee832e5b"`,
    );
  });

  it('draws what the class says (noise off): shapes cover 10-45% of the image, textures half, gradients blend', () => {
    const recs = generateRecords(1000, 3, 0);
    for (let i = 0; i < 1000; i++) {
      const o = i * RECORD_BYTES;
      const label = recs[o] ?? -1;
      const colours = new Map<number, number>();
      for (let p = 0; p < 1024; p++) {
        const rgb = ((recs[o + 1 + p] ?? 0) << 16) | ((recs[o + 1025 + p] ?? 0) << 8) | (recs[o + 2049 + p] ?? 0);
        colours.set(rgb, (colours.get(rgb) ?? 0) + 1);
      }
      const top = Math.max(...colours.values()) / 1024; // share of the most common colour
      if ([0, 1, 2, 7, 8].includes(label))
        expect(top, `record ${i} (${SYNTHETIC_CLASSES[label]})`).toBeGreaterThan(0.55);
      if ([0, 1, 2, 7, 8].includes(label)) expect(top, `record ${i} (${SYNTHETIC_CLASSES[label]})`).toBeLessThan(0.9);
      if ([3, 4, 5, 6].includes(label))
        expect(colours.size === 2 && top >= 0.5 && top < 0.55, `record ${i} (${SYNTHETIC_CLASSES[label]})`).toBe(true);
      if (label === 9) expect(colours.size, `record ${i} (gradient)`).toBeGreaterThan(10);
    }
  });

  it('is stored through the import path as dataset "synthetic"; the same options again are a no-op', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'webddp-synth-'));
    dirs.push(dir);
    const store = await FileDatasetStore.open(dir);
    const r = await importSynthetic(store, { seed: 1, train: 250, test: 40, recordsPerChunk: 100 });
    expect(r.manifest.name).toBe('synthetic');
    expect(r.manifest.classes).toEqual(SYNTHETIC_CLASSES);
    expect(r.manifest.source).toMatchObject({
      kind: 'synthetic',
      description: 'synthetic shapes: seed 1, 250 train, 40 test, noise 16',
    });
    expect([r.manifest.splits.train.records, r.manifest.splits.test.records]).toEqual([250, 40]);
    expect(r.manifest.splits.train.chunks.map((c) => c.records)).toEqual([100, 100, 50]);
    const ds = await openDataset(store, 'synthetic');
    expect(sha(await readSplit(ds, 'train'))).toBe(sha(generateSynthetic({ seed: 1, train: 250, test: 40 }).train));
    const again = await importSynthetic(store, { seed: 1, train: 250, test: 40, recordsPerChunk: 100 });
    expect(again.unchanged).toBe(true);
  });
});
