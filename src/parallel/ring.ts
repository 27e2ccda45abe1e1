// What the ring modes (DDP and the ZeRO stages) share: every rank loads its own DistributedSampler
// shard, its micro-batches are grouped by gradient accumulation, and each rank evaluates positions
// rank, rank + W, ... of the test set (no padding, so every record counts once).
import { augmentOf, groupsOf, microBatches, shardIndices } from '../data/plan.ts';
import type { ParallelMode } from './mode.ts';

export const RING_PLANNING: Pick<ParallelMode, 'topology' | 'loadsData' | 'planEpoch' | 'evalIndices' | 'stepSamples'> =
  {
    topology: 'ring',
    loadsData: () => true,
    async planEpoch({ config: c, rank, world, epoch, source, shardOf }) {
      const indices = shardOf?.(rank) ?? shardIndices(c, source.trainSize, world, rank, epoch);
      await source.loadTrain(indices, augmentOf(c, rank, epoch));
      const steps = groupsOf(microBatches(indices.length, c.batchSize), c.gradAccum);
      return { epoch, steps, samples: indices.length, indices };
    },
    evalIndices: (rank, world, testSize) =>
      Int32Array.from({ length: Math.max(0, Math.ceil((testSize - rank) / world)) }, (_, i) => rank + i * world),
    stepSamples: (perRank) => perRank.reduce((a, b) => a + b, 0),
  };
