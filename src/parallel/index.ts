// Every parallel mode, one entry each (the compiler checks that every Mode has one), and the
// configuration check that adds each mode's own rules to the field checks of src/config.ts.
// Adding a mode: its folder under src/parallel and one entry here.
import { MODES, validateFields, type ConfigIssue, type Mode, type TrainConfig } from '../config.ts';
import { balancedDataParallel, dataParallel } from './data-parallel/index.ts';
import { ddp } from './ddp/index.ts';
import { precisionOf, type ParallelMode, type Placement } from './mode.ts';
import { zero1, zero2, zero3 } from './zero/index.ts';

export type { ParallelMode } from './mode.ts';

export const PARALLEL_MODES: { readonly [M in Mode]: ParallelMode } = {
  ddp,
  dp: dataParallel,
  'balanced-dp': balancedDataParallel,
  zero1,
  zero2,
  zero3,
};

/** Validates a partial config over the defaults: the full config, or every problem found. */
export function validateConfig(
  input: unknown,
): { ok: true; config: TrainConfig } | { ok: false; issues: ConfigIssue[] } {
  const r = validateFields(input);
  if (!r.ok) return r;
  const mode = PARALLEL_MODES[r.config.mode];
  const issues = mode.validate(r.config);
  const precision = precisionOf(r.config);
  if (precision !== 'fp32' && !mode.precisions.includes(precision))
    issues.push({
      field: precision,
      message: `${precision} is not supported with mode ${r.config.mode}: ${precision} mixed precision runs with ${MODES.filter((m) => PARALLEL_MODES[m].precisions.includes(precision)).join(', ')}`,
    });
  return issues.length === 0 ? r : { ok: false, issues };
}

/** validateConfig that throws one error listing every problem. */
export function parseConfig(input: unknown): TrainConfig {
  const r = validateConfig(input);
  if (!r.ok) throw new RangeError(`invalid configuration: ${r.issues.map((i) => i.message).join('; ')}`);
  return r.config;
}

/** Whether `c` (its mode and precision) runs with its ranks placed as `placement`. */
export function runsPlaced(c: Pick<TrainConfig, 'mode' | 'fp16' | 'bf16'>, placement: Placement): boolean {
  return PARALLEL_MODES[c.mode].placements[placement]?.includes(precisionOf(c)) ?? false;
}

/** What runs with `placement`, in words: 'float32 DDP' (each mode with the precisions it runs there). */
export function placedRuns(placement: Placement): string {
  const word = { fp32: 'float32', fp16: 'fp16', bf16: 'bf16' } as const;
  return MODES.flatMap((m) => {
    const p = PARALLEL_MODES[m].placements[placement];
    return p ? [`${p.map((x) => word[x]).join('/')} ${m.toUpperCase()}`] : [];
  }).join(', ');
}
