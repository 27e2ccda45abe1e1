// createSchedule: a schedule config to its per-step learning rates. The table below is keyed by
// every ScheduleType, so adding a type to the union without a builder does not compile.
import { warmupCosineLR, warmupLR } from './deepspeed.ts';
import { CORRECTLY_ROUNDED } from './libm.ts';
import { oneCycleLR } from './one-cycle.ts';
import { cosineAnnealingLR, linearLR, stepLR } from './torch-chainable.ts';
import type { Libm, LrSchedule, LrScheduleConfig, ScheduleOf, ScheduleType } from './types.ts';

export type { Libm, LrSchedule, LrScheduleConfig, ScheduleType } from './types.ts';
export { SCHEDULE_TYPES } from './types.ts';
export { parseSchedule, SCHEDULE_PARAMS } from './params.ts';

type Builder<T extends ScheduleType> = (
  config: ScheduleOf<T>,
  baseLr: number,
  total: number | undefined,
  libm: Libm,
) => LrSchedule;

const BUILDERS: { readonly [T in ScheduleType]: Builder<T> } = {
  LinearLR: (c, lr) => linearLR(c, lr),
  StepLR: (c, lr) => stepLR(c, lr),
  CosineAnnealingLR: (c, lr, _total, libm) => cosineAnnealingLR(c, lr, libm),
  // OneCycleLR sets the lr itself (max_lr / div_factor first): the optimizer's lr is not used.
  OneCycleLR: (c, _lr, total, libm) => oneCycleLR(c, total, libm),
  WarmupLR: (c, lr, _total, libm) => warmupLR(c, lr, undefined, libm),
  WarmupDecayLR: (c, lr, total, libm) => warmupLR(c, lr, total, libm),
  WarmupCosineLR: (c, lr, total, libm) => warmupCosineLR(c, lr, total, libm),
};

/**
 * The schedule for `config` over an optimizer whose configured lr is `baseLr` (PyTorch's
 * initial_lr, DeepSpeed's optimizer lr). `totalSteps`, the run's optimizer steps, stands in for a
 * cycle length the config leaves out (OneCycleLR total_steps, DeepSpeed's total_num_steps).
 * `libm`: see Libm (tests only).
 */
export function createSchedule(
  config: LrScheduleConfig,
  baseLr: number,
  totalSteps?: number,
  libm: Libm = CORRECTLY_ROUNDED,
): LrSchedule {
  const build = BUILDERS[config.type] as Builder<ScheduleType>;
  return build(config, baseLr, totalSteps, libm);
}

/** A schedule config as one line, e.g. `WarmupLR(warmup_min_lr=0, warmup_max_lr=2e-05, ...)`, for logs. */
export function describeSchedule(config: LrScheduleConfig): string {
  const params = Object.entries(config.params)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(', ');
  return `${config.type}(${params})`;
}

/**
 * The learning rate of each optimizer step k (0-based) of a run of `totalSteps` steps: the lr
 * PyTorch's optimizer.step() uses after k scheduler.step() calls, or `lr` when there is no schedule.
 */
/**
 * The momentum (SGD) or beta1 (Adam) the schedule sets at each optimizer step (OneCycleLR with
 * cycle_momentum), or null when it leaves them alone.
 */
function scheduledMomentum(
  schedule: LrScheduleConfig | 'none',
  lr: number,
  totalSteps: number,
): ((step: number) => number) | null {
  if (schedule === 'none') return null;
  const s = createSchedule(schedule, lr, totalSteps);
  if (s.momentum(0) === undefined) return null;
  return (k) => s.momentum(k) ?? NaN;
}

/** The lr and, where the schedule cycles it, the momentum / beta1 of each optimizer step. */
export interface StepSchedule {
  readonly lr: (step: number) => number;
  readonly momentum: ((step: number) => number) | null;
}

export function stepSchedule(schedule: LrScheduleConfig | 'none', lr: number, totalSteps: number): StepSchedule {
  return { lr: learningRates(schedule, lr, totalSteps), momentum: scheduledMomentum(schedule, lr, totalSteps) };
}

export function learningRates(
  schedule: LrScheduleConfig | 'none',
  lr: number,
  totalSteps: number,
): (step: number) => number {
  if (schedule === 'none') return () => lr;
  const s = createSchedule(schedule, lr, totalSteps);
  if (totalSteps - 1 > s.lastStep)
    throw new RangeError(
      `${describeSchedule(schedule)} ends after ${s.lastStep} steps but the run takes ${totalSteps} optimizer steps (PyTorch raises there too)`,
    );
  return (k) => s.lr(k);
}
