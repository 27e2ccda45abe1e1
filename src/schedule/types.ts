// The learning-rate schedules webddp offers, as a typed discriminated union: PyTorch's LinearLR,
// StepLR, CosineAnnealingLR, OneCycleLR (torch.optim.lr_scheduler) and DeepSpeed's WarmupLR,
// WarmupDecayLR, WarmupCosineLR (deepspeed/runtime/lr_schedules.py). Types and parameter names
// are exactly theirs, so a ds_config.json `scheduler` block ({ type, params }) is one of these.

export const SCHEDULE_TYPES = [
  'LinearLR',
  'StepLR',
  'CosineAnnealingLR',
  'OneCycleLR',
  'WarmupLR',
  'WarmupDecayLR',
  'WarmupCosineLR',
] as const;
export type ScheduleType = (typeof SCHEDULE_TYPES)[number];

export type WarmupType = 'log' | 'linear';

export interface LinearLRConfig {
  readonly type: 'LinearLR';
  readonly params: { readonly start_factor: number; readonly end_factor: number; readonly total_iters: number };
}

export interface StepLRConfig {
  readonly type: 'StepLR';
  readonly params: { readonly step_size: number; readonly gamma: number };
}

export interface CosineAnnealingLRConfig {
  readonly type: 'CosineAnnealingLR';
  readonly params: { readonly T_max: number; readonly eta_min: number };
}

export interface OneCycleLRConfig {
  readonly type: 'OneCycleLR';
  readonly params: {
    readonly max_lr: number;
    /** Cycle length; else epochs x steps_per_epoch; else the run's optimizer steps (createSchedule). */
    readonly total_steps?: number;
    readonly epochs?: number;
    readonly steps_per_epoch?: number;
    readonly pct_start: number;
    readonly anneal_strategy: 'cos' | 'linear';
    readonly cycle_momentum: boolean;
    readonly base_momentum: number;
    readonly max_momentum: number;
    readonly div_factor: number;
    readonly final_div_factor: number;
    readonly three_phase: boolean;
  };
}

export interface WarmupLRConfig {
  readonly type: 'WarmupLR';
  readonly params: {
    readonly warmup_min_lr: number;
    /** Absent: the optimizer's lr (DeepSpeed's default None). */
    readonly warmup_max_lr?: number;
    readonly warmup_num_steps: number;
    readonly warmup_type: WarmupType;
  };
}

export interface WarmupDecayLRConfig {
  readonly type: 'WarmupDecayLR';
  readonly params: {
    /** Absent (CLI only; a ds_config must give it, as DeepSpeed requires): the run's optimizer steps. */
    readonly total_num_steps?: number;
    readonly warmup_min_lr: number;
    readonly warmup_max_lr: number;
    readonly warmup_num_steps: number;
    readonly warmup_type: WarmupType;
  };
}

export interface WarmupCosineLRConfig {
  readonly type: 'WarmupCosineLR';
  readonly params: {
    /** As WarmupDecayLR's. */
    readonly total_num_steps?: number;
    readonly warmup_min_ratio: number;
    readonly warmup_num_steps: number;
    readonly cos_min_ratio: number;
    readonly warmup_type: WarmupType;
  };
}

export type LrScheduleConfig =
  | LinearLRConfig
  | StepLRConfig
  | CosineAnnealingLRConfig
  | OneCycleLRConfig
  | WarmupLRConfig
  | WarmupDecayLRConfig
  | WarmupCosineLRConfig;

export type ScheduleOf<T extends ScheduleType> = Extract<LrScheduleConfig, { type: T }>;

/**
 * The cos and log the schedules call: by default correctly rounded ones (./libm.ts), which agree
 * with glibc's (what PyTorch and DeepSpeed get through Python's math) except where glibc itself
 * misrounds, about 0.2% of cos arguments; V8's Math.cos / Math.log are 1 ulp off glibc's far more
 * often. Tests pass glibc's values, recorded by the fixture script, to show that everything else
 * is computed bit for bit as theirs.
 */
export interface Libm {
  cos(x: number): number;
  log(x: number): number;
}

/**
 * A schedule's learning rate per optimizer step. `step` counts the scheduler steps taken before
 * that optimizer step: lr(0) is what the optimizer uses first (PyTorch: get_last_lr() right after
 * construction; DeepSpeed: after construction, last_batch_iteration -1), lr(k) is get_last_lr()
 * after k scheduler.step() calls. DeepSpeed does not step its scheduler on a step skipped for fp16
 * overflow, so a DeepSpeed-like loop passes the number of applied steps, not the step index.
 */
export interface LrSchedule {
  readonly config: LrScheduleConfig;
  lr(step: number): number;
  /**
   * OneCycleLR with cycle_momentum: the SGD momentum (or Adam's beta1) PyTorch sets for that step;
   * undefined for every other schedule (they leave momentum alone).
   */
  momentum(step: number): number | undefined;
  /** The last valid `step` (OneCycleLR: total_steps, where PyTorch raises past it); Infinity otherwise. */
  readonly lastStep: number;
}
