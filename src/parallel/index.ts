// Every parallel mode, one entry each (the compiler checks that every Mode has one), and the
// configuration check that adds each mode's own rules to the field checks of src/config.ts.
// Adding a mode: its folder under src/parallel and one entry here.
import { MODES, validateFields, type ConfigIssue, type Mode, type TrainConfig } from '../config.ts';
import { balancedDataParallel, dataParallel } from './data-parallel/index.ts';
import { ddp } from './ddp/index.ts';
import type { ParallelMode, Placement } from './mode.ts';
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
  if (r.config.bf16 && !mode.bf16)
    issues.push({
      field: 'bf16',
      message: `bf16 is not supported with mode ${r.config.mode}: bf16 mixed precision runs with ${MODES.filter((m) => PARALLEL_MODES[m].bf16).join(', ')}`,
    });
  return issues.length === 0 ? r : { ok: false, issues };
}

/** validateConfig that throws one error listing every problem. */
export function parseConfig(input: unknown): TrainConfig {
  const r = validateConfig(input);
  if (!r.ok) throw new RangeError(`invalid configuration: ${r.issues.map((i) => i.message).join('; ')}`);
  return r.config;
}

/**
 * Whether `c` (its mode and precision) runs with its ranks placed as `placement`: sharing a device
 * runs float32 DDP (runtime/shared-device.ts checkSharable says the same in words).
 */
export function runsPlaced(c: Pick<TrainConfig, 'mode' | 'fp16' | 'bf16'>, placement: Placement): boolean {
  return placement === 'own-devices' || (c.mode === 'ddp' && !c.fp16 && !c.bf16);
}
