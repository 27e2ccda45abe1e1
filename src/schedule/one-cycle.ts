// PyTorch's OneCycleLR (torch/optim/lr_scheduler.py; 1.13 and 2.x compute the same): two phases
// (warm up from max_lr / div_factor to max_lr over pct_start of the cycle, then anneal to
// initial_lr / final_div_factor) or three (up, back down to initial_lr, then to the minimum), cosine or
// linear annealing, and momentum (SGD) or beta1 (Adam) cycled inversely between max_momentum and
// base_momentum. Not chainable: each step is computed from its phase, in PyTorch's operation order.
import { checkStep } from './torch-chainable.ts';
import type { Libm, LrSchedule, OneCycleLRConfig } from './types.ts';

interface Phase {
  readonly endStep: number;
  readonly lr: readonly [number, number];
  readonly momentum: readonly [number, number];
}

/** The cycle length: total_steps, else epochs x steps_per_epoch, else `runSteps`. */
function oneCycleTotal(config: OneCycleLRConfig, runSteps?: number): number {
  const p = config.params;
  const total =
    p.total_steps ??
    (p.epochs !== undefined && p.steps_per_epoch !== undefined ? p.epochs * p.steps_per_epoch : runSteps);
  if (total === undefined || !Number.isInteger(total) || total <= 0)
    throw new RangeError(
      `OneCycleLR needs total_steps (or epochs and steps_per_epoch), a positive integer (got ${String(total)})`,
    );
  return total;
}

export function oneCycleLR(config: OneCycleLRConfig, runSteps: number | undefined, libm: Libm): LrSchedule {
  const p = config.params;
  const total = oneCycleTotal(config, runSteps);
  const initial = p.max_lr / p.div_factor;
  const min = initial / p.final_div_factor;
  const [hi, lo] = [p.max_momentum, p.base_momentum];
  const phases: Phase[] = p.three_phase
    ? [
        { endStep: p.pct_start * total - 1, lr: [initial, p.max_lr], momentum: [hi, lo] },
        { endStep: 2 * p.pct_start * total - 2, lr: [p.max_lr, initial], momentum: [lo, hi] },
        { endStep: total - 1, lr: [initial, min], momentum: [hi, hi] },
      ]
    : [
        { endStep: p.pct_start * total - 1, lr: [initial, p.max_lr], momentum: [hi, lo] },
        { endStep: total - 1, lr: [p.max_lr, min], momentum: [lo, hi] },
      ];
  const anneal =
    p.anneal_strategy === 'cos'
      ? (start: number, end: number, pct: number) => end + ((start - end) / 2.0) * (libm.cos(Math.PI * pct) + 1)
      : (start: number, end: number, pct: number) => (end - start) * pct + start;

  /** get_lr's phase search: the first phase whose end_step >= step (the last phase takes the rest). */
  const at = (step: number): { phase: Phase; pct: number } => {
    checkStep(step, total);
    let start = 0;
    for (const [i, phase] of phases.entries()) {
      if (step <= phase.endStep || i === phases.length - 1) {
        const span = phase.endStep - start;
        // Python raises ZeroDivisionError here; a phase of no length is a configuration error.
        if (span === 0)
          throw new RangeError(`OneCycleLR phase ${i + 1} has no steps (pct_start ${p.pct_start}, total ${total})`);
        return { phase, pct: (step - start) / span };
      }
      start = phase.endStep;
    }
    throw new Error('unreachable: the last phase always matches');
  };
  // A phase of no length divides by zero where a step lands in it: only the first (step 0) or the last (step total) can be hit.
  at(0);
  at(total);
  return {
    config,
    lastStep: total,
    lr: (step) => {
      const { phase, pct } = at(step);
      return anneal(phase.lr[0], phase.lr[1], pct);
    },
    momentum: (step) => {
      if (!p.cycle_momentum) return undefined;
      const { phase, pct } = at(step);
      return anneal(phase.momentum[0], phase.momentum[1], pct);
    },
  };
}
