// A DeepSpeed config (ds_config.json, as deepspeed.initialize(config=...) takes it) mapped onto
// webddp's TrainConfig fields, with DeepSpeed's semantics and defaults (deepspeed/runtime/config.py
// and friends, read at deepspeedai/DeepSpeed edaa722). Every key webddp does not implement is
// refused by its path, never ignored; keys accepted with no effect are listed with their reason
// where they are read (sections.ts). The world size comes from webddp (--workers), as DeepSpeed
// takes it from the launcher.
import type { Mode, TrainConfig } from '../config.ts';
import { parseSchedule } from '../schedule/params.ts';
import { deriveBatch } from './batch.ts';
import { readOptimizer } from './optimizer.ts';
import { bool, int, num, only, onlyKeys, section, type Issues } from './schema.ts';
import { readBf16, readFp16, readZero } from './sections.ts';

/** TrainConfig fields a ds_config sets; `mode` may be 'zero3' (stage 3), which MODES does not have yet. */
export type DeepSpeedFields = Partial<Omit<TrainConfig, 'mode'>> & { readonly mode?: Mode | 'zero3' };

export interface DeepSpeedSettings {
  readonly fields: DeepSpeedFields;
  /** Global batch (train_batch_size) and the other derived sizes, for the log. */
  readonly trainBatchSize: number;
  /** Fields set from DeepSpeed's defaults for keys the file leaves out (gradient_clipping 1.0, stage 0). */
  readonly defaulted: readonly (keyof TrainConfig)[];
  /** What DeepSpeed would build (e.g. which torch optimizer), for the log. */
  readonly notes: readonly string[];
}

const TOP_KEYS = [
  'train_batch_size',
  'train_micro_batch_size_per_gpu',
  'gradient_accumulation_steps',
  'optimizer',
  'scheduler',
  'fp16',
  'bf16',
  'bfloat16',
  'zero_optimization',
  'gradient_clipping',
  'steps_per_print',
  // Accepted, no effect: webddp's ZeRO takes any of its optimizers, tested or not.
  'zero_allow_untested_optimizer',
  'wall_clock_breakdown',
];

const HINTS: Readonly<Record<string, string>> = {
  lr_scheduler: 'is not a DeepSpeed key: the scheduler block is `scheduler` ({ "type": ..., "params": ... })',
  lr_schedule: 'is not a DeepSpeed config key (it is a command-line argument): the scheduler block is `scheduler`',
};

/**
 * Parses `input` (the JSON object) for `world` ranks: the TrainConfig fields it sets, or every
 * problem found, each starting with its path.
 */
export function parseDeepSpeedConfig(
  input: unknown,
  world: number,
): { ok: true; settings: DeepSpeedSettings } | { ok: false; issues: string[] } {
  const issues: Issues = [];
  const top = section(input, 'the DeepSpeed config', issues);
  if (!top) return { ok: false, issues: issues.length ? issues : ['the DeepSpeed config must be an object'] };
  onlyKeys(top, '', TOP_KEYS, issues, HINTS);
  bool(top.zero_allow_untested_optimizer, 'zero_allow_untested_optimizer', issues);
  only(top.wall_clock_breakdown, 'wall_clock_breakdown', issues, false, 'webddp has no per-phase timing printout');
  const notes: string[] = [];
  const batch = {
    train_batch_size: int(top.train_batch_size, 'train_batch_size', issues, 1),
    train_micro_batch_size_per_gpu: int(
      top.train_micro_batch_size_per_gpu,
      'train_micro_batch_size_per_gpu',
      issues,
      1,
    ),
    gradient_accumulation_steps: int(top.gradient_accumulation_steps, 'gradient_accumulation_steps', issues, 1),
  };
  const optimizer = readOptimizer(top.optimizer, issues, notes);
  const fp16 = readFp16(top.fp16, issues);
  const bf16 = top.bf16 !== undefined ? readBf16(top.bf16, 'bf16', issues) : readBf16(top.bfloat16, 'bfloat16', issues);
  if (fp16.fp16 && bf16) issues.push('bfloat16 and fp16 modes cannot be simultaneously enabled');
  const zero = readZero(top.zero_optimization, issues);
  let schedule: TrainConfig['schedule'] | undefined;
  if (top.scheduler !== undefined) {
    const r = parseSchedule(top.scheduler, 'scheduler', true);
    if (r.ok) schedule = r.config;
    else issues.push(...r.issues);
  }
  // DeepSpeed's defaults since 2025-26: gradient_clipping 1.0 (#8068), steps_per_print None (#6602).
  const clipGradNorm = num(top.gradient_clipping, 'gradient_clipping', issues, 0) ?? 1.0;
  const stepsPerPrint = int(top.steps_per_print, 'steps_per_print', issues, 1);
  if (issues.length > 0) return { ok: false, issues };
  const sizes = deriveBatch(batch, world);
  if (!sizes.ok) return { ok: false, issues: [sizes.issue] };
  const fields: DeepSpeedFields = {
    batchSize: sizes.sizes.microBatchPerGpu,
    gradAccum: sizes.sizes.gradAccum,
    ...optimizer,
    ...fp16,
    ...(bf16 === undefined ? {} : { bf16 }),
    ...zero,
    // No scheduler block: DeepSpeed then uses the client's scheduler, if any (here: --schedule).
    ...(schedule === undefined ? {} : { schedule }),
    clipGradNorm,
    ...(stepsPerPrint === undefined ? {} : { stepsPerPrint }),
  };
  const defaulted: (keyof TrainConfig)[] = [];
  if (top.gradient_clipping === undefined) defaulted.push('clipGradNorm');
  if (top.zero_optimization === undefined) defaulted.push('mode');
  return { ok: true, settings: { fields, defaulted, trainBatchSize: sizes.sizes.trainBatchSize, notes } };
}
