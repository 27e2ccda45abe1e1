// The ranges a value may take, wherever it enters: a flag, the page's controls, a DeepSpeed
// config (its optimizer and scheduler blocks), a checkpoint's trainer.json. One table, so that a
// learning rate refused from --lr is refused from `scheduler.params.warmup_max_lr` too.

export interface Bound {
  readonly min: number;
  readonly max: number;
  /** The minimum itself is not allowed (a learning rate must be > 0). */
  readonly minOpen?: boolean;
}

export const BOUNDS = {
  /** The optimizer's learning rate (--lr, optimizer.params.lr). */
  lr: { min: 0, max: 10, minOpen: true },
  /** A learning rate a schedule reaches or starts from (warmup_max_lr, max_lr, eta_min...): 0 allowed. */
  scheduleLr: { min: 0, max: 10 },
  /** A schedule's multiplicative factor per period (StepLR's gamma). */
  scheduleFactor: { min: 0, max: 10 },
  momentum: { min: 0, max: 0.999 },
  weightDecay: { min: 0, max: 1 },
  adamEps: { min: 0, max: 1, minOpen: true },
  fp16LossScale: { min: 0, max: 2 ** 64 },
} as const satisfies Record<string, Bound>;

/** Whether `v` is a finite number within `b`. */
export function inBound(b: Bound, v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && (b.minOpen ? v > b.min : v >= b.min) && v <= b.max;
}

/** `> 0 and <= 10`: the range in words, for messages. */
export function boundText(b: Bound): string {
  return `${b.minOpen ? '>' : '>='} ${b.min} and <= ${b.max}`;
}
