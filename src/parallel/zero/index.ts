// ZeRO stages 1 and 2 (DeepSpeed; Rajbhandari et al. 2020): parameters replicated, optimizer state
// (stage 1) and also gradients (stage 2) partitioned 1/W over the ranks; see runner.ts for a step.
import type { ParallelMode } from '../mode.ts';
import { optimizerOf } from '../mode.ts';
import { RING_PLANNING } from '../ring.ts';
import { bucketLayout, zeroPartition } from './layout.ts';

function zeroStage(stage: 1 | 2): ParallelMode {
  return {
    ...RING_PLANNING,
    partitioned: { optimizer: true, gradients: stage >= 2, parameters: false },
    usesGpu0Bsz: false,
    usesBucketCap: false,
    zeroStage: stage,
    title: `ZeRO-${stage}`,
    torchrunRefusal: null,
    precisions: ['fp32', 'fp16', 'bf16'],
    placements: { 'own-devices': ['fp32', 'fp16', 'bf16'], 'shared-device': ['fp32', 'fp16', 'bf16'] },
    validate: () => [],
    trainerOptions: (spec, c, rank, world) => {
      const p = zeroPartition(rank, world, spec.total, c.fp16 || c.bf16);
      return {
        spec,
        maxBatch: c.batchSize,
        optimizer: optimizerOf(c),
        shard: { offset: p.start, count: p.end - p.start, ownGradients: stage >= 2 },
        ...(c.fp16 ? { fp16: true } : {}),
        ...(c.bf16 ? { bf16: true } : {}),
        ...(stage >= 2 ? { gradientLayout: bucketLayout(spec, 'grads.bucket', false, c.reduceBucketSize) } : {}),
      };
    },
    createRunner: async (ctx) => (await import('./runner.ts')).ZeroRunner.create(ctx, stage),
  };
}

export const zero1 = zeroStage(1);
export const zero2 = zeroStage(2);

/**
 * ZeRO-3: parameters partitioned too. The trainer's parameter arena is a bounded working buffer and
 * its gradient arena the stage-2 bucket; the runner owns the partition, its gradients and the optimizer
 * (fp16: the working buffer holds halves, the runner the fp32 master and the fp16 partition).
 */
export const zero3: ParallelMode = {
  ...RING_PLANNING,
  partitioned: { optimizer: true, gradients: true, parameters: true },
  usesGpu0Bsz: false,
  usesBucketCap: false,
  zeroStage: 3,
  title: 'ZeRO-3',
  torchrunRefusal: null,
  precisions: ['fp32', 'fp16'], // its per-layer gathers and reduce-scatters move fp16 or float32 only
  placements: { 'own-devices': ['fp32', 'fp16'], 'shared-device': ['fp32', 'fp16'] },
  validate: () => [],
  trainerOptions: (spec, c) => ({
    spec,
    maxBatch: c.batchSize,
    optimizer: null,
    gradientLayout: bucketLayout(spec, 'grads.bucket', false, c.reduceBucketSize),
    parameterLayout: bucketLayout(spec, 'params.working', true, c.reduceBucketSize),
    ...(c.fp16 ? { fp16: true } : {}),
  }),
  createRunner: async (ctx) => (await import('./stage3.ts')).Zero3Runner.create(ctx),
};
