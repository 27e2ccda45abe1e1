// A rank's setup from the shared TrainConfig: its trainer (optimizer or none, ZeRO shard,
// batch capacity), its mode runner, and each epoch's batches: DistributedSampler indices split
// into micro-batches (DataLoader order, last batch short) grouped by gradient accumulation.
// DataParallel's device 0 draws the same samples a DDP run would, step for step: the global
// batch of step i is every rank's DDP batch i, in rank order.
import type { TrainConfig } from '../config.ts';
import type { ModelSpec } from '../nn/spec.ts';
import type { TrainerOptions } from '../train/trainer.ts';
import { DataParallelReplica } from '../parallel/data-parallel/replica.ts';
import { DataParallelRoot, dpChunks } from '../parallel/data-parallel/root.ts';
import { DdpRunner } from '../parallel/ddp.ts';
import type { MicroBatch, ModeContext, ModeRunner } from '../parallel/mode.ts';
import { ZeroRunner, zeroPartition } from '../parallel/zero.ts';
import type { RankInit } from './protocol.ts';
import { DistributedSampler } from '../data/sampler.ts';
import type { BatchSource } from '../data/source.ts';

export interface RankSchedule {
  readonly epoch: number;
  /** Each optimizer step's micro-batches (positions in the loaded shard). */
  readonly steps: readonly (readonly MicroBatch[])[];
  readonly samples: number;
  readonly indices: Int32Array;
}

export const isDataParallel = (c: TrainConfig) => c.mode === 'dp' || c.mode === 'balanced-dp';

export function trainerOptions(spec: ModelSpec, c: TrainConfig, rank: number, world: number): TrainerOptions {
  const optimizer = {
    name: c.optimizer,
    lr: c.lr,
    momentum: c.optimizer === 'sgd' ? c.momentum : 0,
    weightDecay: c.weightDecay,
  };
  if (isDataParallel(c)) {
    const chunk = dpChunks({ config: c, world }, c.batchSize * world)[rank] ?? 0;
    return {
      spec,
      maxBatch: Math.max(1, chunk),
      optimizer: rank === 0 ? optimizer : null,
      ...(rank === 0 && c.clipGradNorm > 0 ? { clipGradNorm: c.clipGradNorm } : {}),
    };
  }
  if (c.mode === 'zero1' || c.mode === 'zero2') {
    const p = zeroPartition(rank, world, spec.total);
    return {
      spec,
      maxBatch: c.batchSize,
      optimizer,
      shard: { offset: p.start, count: p.end - p.start },
      partitionGradients: c.mode === 'zero2',
    };
  }
  return { spec, maxBatch: c.batchSize, optimizer, ...(c.clipGradNorm > 0 ? { clipGradNorm: c.clipGradNorm } : {}) };
}

export async function buildRunner(ctx: ModeContext): Promise<ModeRunner> {
  const c = ctx.config;
  if (isDataParallel(c)) return ctx.rank === 0 ? DataParallelRoot.create(ctx) : DataParallelReplica.create(ctx);
  if (c.mode === 'zero1' || c.mode === 'zero2') return ZeroRunner.create(ctx);
  return DdpRunner.create(ctx);
}

/** Consecutive batches of `size` over `n` positions (the last one short), as DataLoader(drop_last=False). */
function batches(n: number, size: number): MicroBatch[] {
  return Array.from({ length: Math.ceil(n / size) }, (_, i) => ({
    start: i * size,
    count: Math.min(size, n - i * size),
  }));
}

function group<T>(xs: readonly T[], k: number): T[][] {
  return Array.from({ length: Math.ceil(xs.length / k) }, (_, i) => xs.slice(i * k, (i + 1) * k));
}

/** Loads this rank's data for `epoch` and plans its steps (null source: a DataParallel replica). */
export async function localBatchPlan(init: RankInit, source: BatchSource | null, epoch: number): Promise<RankSchedule> {
  const c = init.config;
  if (!source) return { epoch, steps: [], samples: 0, indices: new Int32Array(0) };
  const sampler = (rank: number) => {
    const s = new DistributedSampler(source.trainSize, {
      numReplicas: init.world,
      rank,
      shuffle: c.shuffle,
      seed: c.seed,
      dropLast: c.dropLast,
    });
    s.setEpoch(epoch);
    return s.indices();
  };
  const augment = c.augment ? { seed: c.seed, rank: init.rank, epoch } : null;
  if (!isDataParallel(c)) {
    const indices = sampler(init.rank);
    await source.loadTrain(indices, augment);
    return { epoch, steps: group(batches(indices.length, c.batchSize), c.gradAccum), samples: indices.length, indices };
  }
  // DataParallel on device 0: step i's global batch is batch i of every rank's shard, in rank order.
  const shards = Array.from({ length: init.world }, (_, r) => sampler(r));
  const per = batches(shards[0]?.length ?? 0, c.batchSize);
  const global: number[] = [];
  const steps = per.map((b) => {
    const start = global.length;
    for (const shard of shards) global.push(...shard.subarray(b.start, b.start + b.count));
    return [{ start, count: global.length - start }];
  });
  const indices = Int32Array.from(global);
  await source.loadTrain(indices, augment);
  return { epoch, steps, samples: indices.length, indices };
}
