// PyTorch's chainable schedulers (torch/optim/lr_scheduler.py, 1.13 and 2.x alike): LinearLR,
// StepLR and CosineAnnealingLR compute each lr from the previous one (get_lr's recursive form,
// Python float64), not from the closed form, so the rounding drifts exactly as theirs does. The
// recursion is replayed here in the same operation order; JS numbers are the same float64.
import type { CosineAnnealingLRConfig, Libm, LinearLRConfig, LrSchedule, StepLRConfig } from './types.ts';

/** A schedule whose value at step k is next(value at k - 1, k), memoised so lr(k) is O(1) after the first call. */
export class Recurrence {
  private readonly values: number[];

  constructor(
    first: number,
    private readonly next: (prev: number, epoch: number) => number,
  ) {
    this.values = [first];
  }

  at(step: number): number {
    checkStep(step);
    while (this.values.length <= step) {
      const epoch = this.values.length;
      this.values.push(this.next(this.values[epoch - 1] ?? NaN, epoch));
    }
    return this.values[step] ?? NaN;
  }
}

export function checkStep(step: number, last = Infinity): void {
  if (!Number.isInteger(step) || step < 0 || step > last)
    throw new RangeError(`schedule step must be an integer from 0 to ${last} (got ${step})`);
}

/** Python's % (the result takes the divisor's sign). */
const pyMod = (a: number, m: number) => ((a % m) + m) % m;

function chainable(config: LrSchedule['config'], r: Recurrence): LrSchedule {
  return { config, lr: (step) => r.at(step), momentum: () => undefined, lastStep: Infinity };
}

/** LinearLR.get_lr: lr * start_factor at epoch 0, then lr *= 1 + (e - s) / (T s + (k - 1)(e - s)) up to total_iters. */
export function linearLR(config: LinearLRConfig, baseLr: number): LrSchedule {
  const { start_factor: s, end_factor: e, total_iters: total } = config.params;
  return chainable(
    config,
    new Recurrence(baseLr * s, (lr, k) => (k > total ? lr : lr * (1 + (e - s) / (total * s + (k - 1) * (e - s))))),
  );
}

/** StepLR.get_lr: lr *= gamma at every multiple of step_size. */
export function stepLR(config: StepLRConfig, baseLr: number): LrSchedule {
  const { step_size: size, gamma } = config.params;
  return chainable(config, new Recurrence(baseLr, (lr, k) => (k % size !== 0 ? lr : lr * gamma)));
}

/**
 * CosineAnnealingLR.get_lr: at k = T_max + 1 (mod 2 T_max) lr += (base - eta_min)(1 - cos(pi / T_max)) / 2,
 * else lr = (1 + cos(pi k / T_max)) / (1 + cos(pi (k - 1) / T_max)) (lr - eta_min) + eta_min; past T_max
 * it climbs back (PyTorch does not stop at eta_min).
 */
export function cosineAnnealingLR(config: CosineAnnealingLRConfig, baseLr: number, libm: Libm): LrSchedule {
  const { T_max: t, eta_min: etaMin } = config.params;
  const cos = (x: number) => libm.cos(x);
  return chainable(
    config,
    new Recurrence(baseLr, (lr, k) =>
      pyMod(k - 1 - t, 2 * t) === 0
        ? lr + ((baseLr - etaMin) * (1 - cos(Math.PI / t))) / 2
        : ((1 + cos((Math.PI * k) / t)) / (1 + cos((Math.PI * (k - 1)) / t))) * (lr - etaMin) + etaMin,
    ),
  );
}
