// A run's TrainConfig mapped back onto a DeepSpeed config (ds_config.json), the inverse of
// src/deepspeed/config.ts: batch sizes (train_batch_size = micro-batch x accumulation x world),
// the optimizer as DeepSpeed builds it (Adam with adam_w_mode false is torch's Adam with L2 decay,
// AdamW is the decoupled one, SGD is torch.optim.SGD), DeepSpeed's own schedules, gradient
// clipping (0 written out: DeepSpeed's default is 1.0), the ZeRO stage and bucket. Reading the
// file back with webddp's reader gives the run's fields (test/unit/export-ds-config.test.ts).
import type { TrainConfig } from '../config.ts';
import { PARALLEL_MODES } from '../parallel/index.ts';

/** The ZeRO stage of a mode, or null where the run did not use ZeRO (DDP, DataParallel). */
export function zeroStage(mode: TrainConfig['mode']): number | null {
  const stage = PARALLEL_MODES[mode].zeroStage;
  return stage === null || stage === 0 ? null : stage;
}

function optimizer(c: TrainConfig): Record<string, unknown> {
  if (c.optimizer === 'sgd')
    return { type: 'SGD', params: { lr: c.lr, momentum: c.momentum, weight_decay: c.weightDecay } };
  const params = { lr: c.lr, betas: [...c.adamBetas], eps: c.adamEps, weight_decay: c.weightDecay };
  return c.optimizer === 'adamw'
    ? { type: 'AdamW', params }
    : { type: 'Adam', params: { ...params, adam_w_mode: false } };
}

const DEEPSPEED_SCHEDULES: readonly string[] = ['WarmupLR', 'WarmupDecayLR', 'WarmupCosineLR'];

/** Whether DeepSpeed's `scheduler` section can name the run's schedule (its own types only). */
export function deepSpeedSchedules(c: TrainConfig): boolean {
  return c.schedule !== 'none' && DEEPSPEED_SCHEDULES.includes(c.schedule.type);
}

/** ds_config.json's object for `c` (a ZeRO run); `totalSteps` fills a DeepSpeed schedule's missing total. */
export function deepSpeedConfig(c: TrainConfig, totalSteps: number): Record<string, unknown> {
  const stage = zeroStage(c.mode);
  if (stage === null) throw new Error(`mode ${c.mode} is not ZeRO: no ds_config.json`);
  const out: Record<string, unknown> = {
    train_batch_size: c.batchSize * c.gradAccum * c.workers,
    train_micro_batch_size_per_gpu: c.batchSize,
    gradient_accumulation_steps: c.gradAccum,
    optimizer: optimizer(c),
  };
  if (c.schedule !== 'none' && deepSpeedSchedules(c)) {
    const params: Record<string, unknown> = { ...c.schedule.params };
    if (c.schedule.type !== 'WarmupLR' && params.total_num_steps === undefined) params.total_num_steps = totalSteps;
    // Written out (the optimizer's lr when the run left it out), so the file does not lean on a default.
    if (c.schedule.type !== 'WarmupCosineLR' && params.warmup_max_lr === undefined) params.warmup_max_lr = c.lr;
    out.scheduler = { type: c.schedule.type, params };
  }
  out.gradient_clipping = c.clipGradNorm;
  out.zero_optimization = { stage, reduce_bucket_size: c.reduceBucketSize };
  if (c.stepsPerPrint > 0) out.steps_per_print = c.stepsPerPrint;
  return out;
}
