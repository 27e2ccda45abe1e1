// A rank's batches: its shard of the training split for the epoch (DistributedSampler indices),
// loaded once per epoch, then sliced into batches in sampler order. Datasets in a store arrive as
// uint8 (normalised on the GPU, optionally augmented); parity tensors arrive as floats, used as is.
import { Augmenter } from './augment.ts';
import { batch as gatherBatch } from './batch.ts';
import type { Dataset } from './dataset.ts';
import type { SharedChunkReads } from './chunk-reads.ts';
import { loadShard, type LoadShardOptions, type Shard } from './shard.ts';
import type { Batch } from './batch.ts';

export interface BatchSource {
  readonly trainSize: number;
  readonly testSize: number;
  /** Loads `indices` of the train split (replacing the previous epoch's shard). */
  loadTrain(indices: Int32Array, augment: { seed: number; rank: number; epoch: number } | null): Promise<void>;
  loadTest(indices: Int32Array): Promise<void>;
  /** Positions [start, start + count) of the loaded shard, in order (augmentation draws advance in call order). */
  trainBatch(start: number, count: number): Batch;
  /** The last batch trainBatch returned (for the page's sample of current images). */
  readonly lastBatch: Batch | null;
  testBatch(start: number, count: number): Batch;
}

const range = (start: number, count: number) => Int32Array.from({ length: count }, (_, i) => start + i);

export class DatasetSource implements BatchSource {
  lastBatch: Batch | null = null;
  private train: Shard | null = null;
  private test: Shard | null = null;
  private augmenter: Augmenter | null = null;

  constructor(
    private readonly dataset: Dataset,
    private readonly trainLimit: number,
    private readonly testLimit: number,
    /** Ranks sharing a device: chunk reads shared with the other ranks of the worker. */
    private readonly shared?: SharedChunkReads,
  ) {}

  private get opts(): LoadShardOptions {
    return this.shared ? { shared: this.shared } : {};
  }

  get trainSize(): number {
    return limit(this.dataset.size('train'), this.trainLimit);
  }
  get testSize(): number {
    return limit(this.dataset.size('test'), this.testLimit);
  }

  async loadTrain(indices: Int32Array, augment: { seed: number; rank: number; epoch: number } | null): Promise<void> {
    this.train = await loadShard(this.dataset, 'train', indices, this.opts);
    this.augmenter = augment ? new Augmenter(augment) : null;
  }

  async loadTest(indices: Int32Array): Promise<void> {
    this.test = await loadShard(this.dataset, 'test', indices, this.opts);
  }

  trainBatch(start: number, count: number): Batch {
    if (!this.train) throw new Error('no training shard loaded: beginEpoch first');
    this.lastBatch = gatherBatch(this.train, range(start, count), this.augmenter ?? undefined);
    return this.lastBatch;
  }

  testBatch(start: number, count: number): Batch {
    if (!this.test) throw new Error('no test shard loaded');
    return gatherBatch(this.test, range(start, count));
  }
}

export class TensorSource implements BatchSource {
  lastBatch: Batch | null = null;
  private trainIdx: Int32Array = new Int32Array(0);
  private testIdx: Int32Array = new Int32Array(0);

  constructor(
    private readonly x: Float32Array,
    private readonly y: Int32Array,
    private readonly testX?: Float32Array,
    private readonly testY?: Int32Array,
  ) {
    if (x.length !== y.length * 3072)
      throw new RangeError(`tensor data: x holds ${x.length} floats for ${y.length} labels (needs 3072 each)`);
  }

  get trainSize(): number {
    return this.y.length;
  }
  get testSize(): number {
    return this.testY?.length ?? 0;
  }

  async loadTrain(indices: Int32Array): Promise<void> {
    this.trainIdx = indices;
  }
  async loadTest(indices: Int32Array): Promise<void> {
    this.testIdx = indices;
  }

  trainBatch(start: number, count: number): Batch {
    this.lastBatch = pick(this.x, this.y, this.trainIdx, start, count);
    return this.lastBatch;
  }

  testBatch(start: number, count: number): Batch {
    if (!this.testX || !this.testY) throw new Error('tensor data has no test split');
    return pick(this.testX, this.testY, this.testIdx, start, count);
  }
}

function pick(x: Float32Array, y: Int32Array, idx: Int32Array, start: number, count: number): Batch {
  const out = new Float32Array(count * 3072);
  const labels = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const j = idx[start + i];
    if (j === undefined || j < 0 || j >= y.length)
      throw new RangeError(`tensor data: index ${j} at position ${start + i} is out of range`);
    out.set(x.subarray(j * 3072, (j + 1) * 3072), i * 3072);
    labels[i] = y[j] ?? 0;
  }
  return { x: out, labels };
}

function limit(size: number, lim: number): number {
  return lim > 0 ? Math.min(size, lim) : size;
}
