// Epoch planning, the data loader's part: which records a rank trains on this epoch
// (DistributedSampler), cut into batches as DataLoader(drop_last=False) cuts them, and grouped
// into optimizer steps by gradient accumulation. The parallel modes compose these (src/parallel).
import { DistributedSampler } from './sampler.ts';

/** The loader settings a plan reads (a TrainConfig has them). */
export interface LoaderSettings {
  readonly shuffle: boolean;
  readonly seed: number;
  readonly dropLast: boolean;
  readonly augment: boolean;
}

/** Positions [start, start + count) of a rank's loaded shard (DataParallel: of device 0's global list). */
export interface MicroBatch {
  readonly start: number;
  readonly count: number;
}

/** One rank's epoch: the records it loaded and each optimizer step's micro-batches. */
export interface EpochPlan {
  readonly epoch: number;
  /** Each optimizer step's micro-batches (positions in the loaded shard). */
  readonly steps: readonly (readonly MicroBatch[])[];
  readonly samples: number;
  /** The dataset indices loaded, in order. */
  readonly indices: Int32Array;
}

/** Rank `rank`'s DistributedSampler indices for `epoch` over `n` records. */
export function shardIndices(c: LoaderSettings, n: number, world: number, rank: number, epoch: number): Int32Array {
  const s = new DistributedSampler(n, {
    numReplicas: world,
    rank,
    shuffle: c.shuffle,
    seed: c.seed,
    dropLast: c.dropLast,
  });
  s.setEpoch(epoch);
  return s.indices();
}

/** Consecutive batches of `size` over `n` positions (the last one short), as DataLoader(drop_last=False). */
export function microBatches(n: number, size: number): MicroBatch[] {
  return Array.from({ length: Math.ceil(n / size) }, (_, i) => ({
    start: i * size,
    count: Math.min(size, n - i * size),
  }));
}

/** Groups consecutive items by `k` (the last group short): micro-batches into accumulation steps. */
export function groupsOf<T>(xs: readonly T[], k: number): T[][] {
  return Array.from({ length: Math.ceil(xs.length / k) }, (_, i) => xs.slice(i * k, (i + 1) * k));
}

/** The augmentation stream of a rank's epoch, or null when augmentation is off. */
export function augmentOf(c: LoaderSettings, rank: number, epoch: number) {
  return c.augment ? { seed: c.seed, rank, epoch } : null;
}
