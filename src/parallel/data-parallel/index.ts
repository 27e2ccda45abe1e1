// torch.nn.DataParallel and BalancedDataParallel (transformer-xl): device 0 holds the master
// parameters, the only optimizer and the whole batch; it scatters chunks to the replicas, gathers
// their outputs, computes the loss over the whole batch and reduce-adds their gradients (root.ts,
// replica.ts). Device 0 draws the same samples a DDP run would, step for step: the global batch
// of step i is every rank's DDP batch i, in rank order. Gradient accumulation runs gradAccum such
// global batches through the whole DataParallel forward/backward (loss scaled by 1/gradAccum)
// before the one optimizer step (PyTorch's DataParallel accumulates .grad like any module).
// fp16: device 0 holds the fp32 master and the loss scaler; the replicas fp16 parameters and
// gradients (root.ts).
import type { ConfigIssue } from '../../config.ts';
import { augmentOf, groupsOf, microBatches, shardIndices } from '../../data/plan.ts';
import type { ParallelMode } from '../mode.ts';
import { optimizerOf } from '../mode.ts';
import { balancedChunks, dataParallelChunks, type ChunkRule } from './chunks.ts';

function dataParallelMode(chunks: ChunkRule, usesGpu0Bsz: boolean, title: string): ParallelMode {
  return {
    topology: 'star',
    partitioned: { optimizer: false, gradients: false, parameters: false },
    usesGpu0Bsz,
    usesBucketCap: false,
    zeroStage: null,
    title,
    torchrunRefusal:
      'device 0 reads, splits and sums a global batch, which no torchrun (one process per rank, each with its own ' +
      'DistributedSampler shard) reproduces',
    precisions: ['fp32', 'fp16'], // device 0's exchanges with its replicas move fp16 or float32 only
    placements: { 'own-devices': ['fp32', 'fp16'], 'shared-device': ['fp32', 'fp16'] },
    validate: (c) => {
      const issues: ConfigIssue[] = [];
      if (!usesGpu0Bsz) return issues;
      if (c.workers < 2) issues.push({ field: 'workers', message: `${c.mode} needs at least 2 workers` });
      if (c.gpu0Bsz > c.batchSize * c.workers)
        issues.push({
          field: 'gpu0Bsz',
          message: `gpu0Bsz (${c.gpu0Bsz}) cannot exceed the global batch (${c.batchSize * c.workers})`,
        });
      return issues;
    },
    trainerOptions: (spec, c, rank, world) => ({
      spec,
      maxBatch: Math.max(1, chunks(c.batchSize * world, world, c)[rank] ?? 0),
      optimizer: rank === 0 ? optimizerOf(c) : null,
      ...(rank === 0 && c.clipGradNorm > 0 ? { clipGradNorm: c.clipGradNorm } : {}),
      // fp16 parameters and gradients, but float32 activations: device 0 scatters the normalised
      // float32 batch by buffer copies into every model's input, which would hold halves
      ...(c.fp16 ? { fp16: true, halfActivations: false } : {}),
    }),
    loadsData: (rank) => rank === 0,
    async planEpoch({ config: c, world, epoch, source, shardOf }) {
      const shards = Array.from(
        { length: world },
        (_, r) => shardOf?.(r) ?? shardIndices(c, source.trainSize, world, r, epoch),
      );
      const per = microBatches(shards[0]?.length ?? 0, c.batchSize);
      const global: number[] = [];
      const batches = per.map((b) => {
        const start = global.length;
        for (const shard of shards) global.push(...shard.subarray(b.start, b.start + b.count));
        return { start, count: global.length - start };
      });
      // Gradient accumulation: gradAccum whole DataParallel forward/backward passes per optimizer step.
      const steps = groupsOf(batches, c.gradAccum);
      const indices = Int32Array.from(global);
      await source.loadTrain(indices, augmentOf(c, 0, epoch));
      return { epoch, steps, samples: indices.length, indices };
    },
    evalIndices: (rank, _world, testSize) =>
      rank === 0 ? Int32Array.from({ length: testSize }, (_, i) => i) : new Int32Array(0),
    stepSamples: (perRank) => perRank[0] ?? 0,
    async createRunner(ctx) {
      if (ctx.rank !== 0) return (await import('./replica.ts')).DataParallelReplica.create(ctx);
      return (await import('./root.ts')).DataParallelRoot.create(ctx, chunks);
    },
  };
}

export const dataParallel = dataParallelMode((batch, world) => dataParallelChunks(batch, world), false, 'DataParallel');
export const balancedDataParallel = dataParallelMode(
  (batch, world, c) => balancedChunks(batch, world, c.gpu0Bsz),
  true,
  'BalancedDataParallel',
);
