// torch.utils.data.distributed.DistributedSampler, index for index, plus the DataLoader-style
// batching of a rank's indices (torch.utils.data.BatchSampler over the sampler's output).
// Source: torch/utils/data/distributed.py (2.11; same logic in 1.13), torch/utils/data/sampler.py
// BatchSampler. Shuffling uses a fresh CPU generator seeded seed + epoch, like PyTorch.

import { CpuGenerator, randperm, seedToU64 } from '../random/generator.ts';

/** Largest dataset length: indices are returned as an Int32Array. */
export const MAX_DATASET_LENGTH = 2 ** 31 - 1;

/** The constructor arguments of `DistributedSampler` after `dataset` (PyTorch's defaults). */
export interface DistributedSamplerOptions {
  /** `num_replicas`: the world size, a positive integer. */
  readonly numReplicas: number;
  /** `rank`: an integer in [0, numReplicas). */
  readonly rank: number;
  /** `shuffle` (default true). */
  readonly shuffle?: boolean;
  /** `seed` (default 0); seed + epoch must lie in torch's seed range [-2^63, 2^64). */
  readonly seed?: number | bigint;
  /** `drop_last` (default false). */
  readonly dropLast?: boolean;
}

function toBigIntInteger(v: number | bigint, what: string): bigint {
  if (typeof v === 'bigint') return v;
  if (!Number.isSafeInteger(v)) throw new RangeError(`${what} must be an integer (got ${v})`);
  return BigInt(v);
}

/**
 * `DistributedSampler(dataset, num_replicas, rank, shuffle, seed, drop_last)` for a dataset of
 * `datasetLength` samples. Call `setEpoch(e)` at the start of every epoch (as with PyTorch,
 * forgetting it repeats epoch 0's order), then `indices()` for this rank's sample indices.
 */
export class DistributedSampler {
  readonly datasetLength: number;
  readonly numReplicas: number;
  readonly rank: number;
  readonly shuffle: boolean;
  readonly seed: bigint;
  readonly dropLast: boolean;
  /** `num_samples`, i.e. `len(sampler)`: how many indices each rank gets per epoch. */
  readonly length: number;
  /** `total_size` = length * numReplicas: the padded (or truncated) list all ranks share. */
  readonly totalSize: number;
  private currentEpoch = 0;

  constructor(datasetLength: number, opts: DistributedSamplerOptions) {
    const { numReplicas, rank, shuffle = true, seed = 0, dropLast = false } = opts;
    if (!Number.isSafeInteger(datasetLength) || datasetLength < 0 || datasetLength > MAX_DATASET_LENGTH) {
      throw new RangeError(
        `DistributedSampler: dataset length must be an integer in [0, ${MAX_DATASET_LENGTH}] (got ${datasetLength})`,
      );
    }
    if (!Number.isSafeInteger(numReplicas) || numReplicas < 1) {
      throw new RangeError(`DistributedSampler: numReplicas must be a positive integer (got ${numReplicas})`);
    }
    if (!Number.isSafeInteger(rank) || rank < 0 || rank >= numReplicas) {
      throw new RangeError(
        `DistributedSampler: invalid rank ${rank}, rank should be an integer in the interval [0, ${numReplicas - 1}]`,
      );
    }
    this.seed = toBigIntInteger(seed, 'DistributedSampler: seed');
    seedToU64(this.seed); // throws a RangeError naming the seed when it is outside [-2^63, 2^64)
    this.datasetLength = datasetLength;
    this.numReplicas = numReplicas;
    this.rank = rank;
    this.shuffle = shuffle;
    this.dropLast = dropLast;
    // The same float divisions and ceilings as distributed.py L94-103 ("+ 0" turns -0 into 0 when
    // drop_last leaves nothing: ceil((2 - 5) / 5) is 0 in Python).
    this.length =
      dropLast && datasetLength % numReplicas !== 0
        ? Math.ceil((datasetLength - numReplicas) / numReplicas) + 0
        : Math.ceil(datasetLength / numReplicas);
    this.totalSize = this.length * numReplicas;
  }

  /** The epoch set last (0 until `setEpoch` is called). */
  get epoch(): number {
    return this.currentEpoch;
  }

  /** `set_epoch(epoch)`: the next `indices()` shuffles with a generator seeded seed + epoch. */
  setEpoch(epoch: number): void {
    if (!Number.isSafeInteger(epoch))
      throw new RangeError(`DistributedSampler: epoch must be an integer (got ${epoch})`);
    if (this.shuffle) {
      const s = this.seed + BigInt(epoch);
      if (s < -(1n << 63n) || s >= 1n << 64n) {
        throw new RangeError(`DistributedSampler: seed + epoch = ${s} is outside torch's seed range [-2^63, 2^64)`);
      }
    }
    this.currentEpoch = epoch;
  }

  /** This rank's indices for the current epoch, like `list(iter(sampler))`. */
  indices(): Int32Array {
    const n = this.datasetLength;
    const base = this.shuffle ? randperm(n, new CpuGenerator(this.seed + BigInt(this.currentEpoch))) : null;
    // Padding repeats the (shuffled) list from its start as often as needed; drop_last truncates
    // it (totalSize <= n then). Either way position i of the full list holds base[i % n].
    const out = new Int32Array(this.length);
    for (let k = 0, i = this.rank; k < out.length; k++, i += this.numReplicas) {
      const j = i % n;
      out[k] = base ? (base[j] ?? 0) : j;
    }
    return out;
  }
}

function checkBatchSize(batchSize: number): void {
  if (!Number.isSafeInteger(batchSize) || batchSize < 1)
    throw new RangeError(`batch size must be a positive integer (got ${batchSize})`);
}

/** `len(DataLoader)` over `numSamples` indices: ceil(n / batchSize), or floor with dropLast. */
export function numBatches(numSamples: number, batchSize: number, dropLast = false): number {
  if (!Number.isSafeInteger(numSamples) || numSamples < 0)
    throw new RangeError(`number of samples must be a non-negative integer (got ${numSamples})`);
  checkBatchSize(batchSize);
  return dropLast ? Math.floor(numSamples / batchSize) : Math.ceil(numSamples / batchSize);
}

/**
 * Batch `i` (0-based) of a DataLoader with `batch_size` over `indices`: the consecutive slice
 * [i * batchSize, (i + 1) * batchSize), the last one short unless dropLast. A fresh copy.
 */
export function batchAt(indices: Int32Array, batchSize: number, i: number, dropLast = false): Int32Array {
  const count = numBatches(indices.length, batchSize, dropLast);
  if (!Number.isSafeInteger(i) || i < 0 || i >= count)
    throw new RangeError(`batch index must be an integer in [0, ${count - 1}] (got ${i})`);
  return indices.slice(i * batchSize, (i + 1) * batchSize);
}

/** Every batch of a DataLoader with `batch_size` over `indices` (BatchSampler order); fresh copies. */
export function batchIndices(indices: Int32Array, batchSize: number, dropLast = false): Int32Array[] {
  const count = numBatches(indices.length, batchSize, dropLast);
  const out: Int32Array[] = [];
  for (let i = 0; i < count; i++) out.push(indices.slice(i * batchSize, (i + 1) * batchSize));
  return out;
}
