// DistributedDataParallel (torch.nn.parallel.DistributedDataParallel): one full replica per rank,
// gradients averaged by bucketed ring all-reduces overlapping backward, no_sync accumulation.
import type { ParallelMode } from '../mode.ts';
import { optimizerOf } from '../mode.ts';
import { halvesPipelined } from '../fp16.ts';
import { RING_PLANNING } from '../ring.ts';

export const ddp: ParallelMode = {
  ...RING_PLANNING,
  partitioned: { optimizer: false, gradients: false, parameters: false },
  usesGpu0Bsz: false,
  usesBucketCap: true,
  zeroStage: 0,
  title: 'DistributedDataParallel',
  torchrunRefusal: null,
  precisions: ['fp32', 'fp16', 'bf16'],
  // ranks sharing a device sum their float32 buckets there (train/device-reduce.ts); fp16 and
  // bf16 buckets, summed in 16 bits in ring order, still go around the host ring
  placements: { 'own-devices': ['fp32', 'fp16', 'bf16'], 'shared-device': ['fp32', 'fp16', 'bf16'] },
  validate: () => [],
  // One worker, or ranks sharing a device: a step is submits only (no host collective);
  // accumulation would interleave micro-batches. fp16 and bf16 on one worker: one submit a step,
  // fp16's loss scaler on the GPU (../fp16.ts halvesPipelined), but not where the GPU cannot take
  // the host's decision exactly: an lr schedule (a skipped step must not advance it, and it is the
  // host's) or a dynamic scale whose min_loss_scale is not a power of two; those fp16 runs read
  // the overflow flag back before each update, and 16-bit ranks sharing a device go around the ring.
  // Ranks with their own devices: the runner still ends a step's ring before it starts the next
  // step (DdpRunner.step), but the next step's request is waiting on the rank, not a message away;
  // not fp16, whose skipped steps decide the next step's lr on the host.
  pipelines: (c, colocated) => {
    if (c.gradAccum !== 1) return false;
    if (c.workers === 1 || colocated) return (!c.fp16 && !c.bf16) || halvesPipelined(c);
    return !c.fp16;
  },
  trainerOptions: (spec, c) => ({
    spec,
    maxBatch: c.batchSize,
    optimizer: optimizerOf(c),
    ...(c.fp16 ? { fp16: true } : {}),
    ...(c.bf16 ? { bf16: true } : {}),
    ...(c.clipGradNorm > 0 ? { clipGradNorm: c.clipGradNorm } : {}),
  }),
  createRunner: async (ctx) => (await import('./runner.ts')).DdpRunner.create(ctx),
};
