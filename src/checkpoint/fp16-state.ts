// What a checkpoint of an fp16 run adds to trainer.json: the loss scaler's state (DeepSpeed's
// cur_scale, cur_iter, last_overflow_iter, cur_hysteresis) and how many steps overflow skipped
// (they took no optimizer or schedule step, so the schedule's position is the optimizer steps
// done). The float32 master weights are the checkpoint's model.safetensors: the optimizer updates
// them and the fp16 parameters are their rounding.
import type { TrainConfig } from '../config.ts';
import type { ScalerState } from '../optim/loss-scaler.ts';
import { lossScalerOf } from '../parallel/fp16.ts';

/** An fp16 run's state beyond parameters and optimizer. */
export interface Fp16Snapshot {
  readonly scaler: ScalerState;
  /** Steps skipped on overflow so far (the schedule did not step for them). */
  readonly skippedSteps: number;
}

export interface Fp16Json {
  readonly lossScale: number;
  readonly scalerIter: number;
  readonly lastOverflowIter: number;
  readonly hysteresisLeft: number;
  readonly skippedSteps: number;
}

export function fp16Json(f: Fp16Snapshot): Fp16Json {
  const s = f.scaler;
  return {
    lossScale: s.scale,
    scalerIter: s.iter,
    lastOverflowIter: s.lastOverflowIter,
    hysteresisLeft: s.hysteresis,
    skippedSteps: f.skippedSteps,
  };
}

/**
 * trainer.json's fp16 section for a run of `config`: undefined for an fp32 run (which must have
 * none); for an fp16 run, every field present and a number of the right kind, else what is wrong.
 */
export function readFp16Json(
  j: unknown,
  config: TrainConfig,
): { ok: true; value?: Fp16Snapshot } | { ok: false; issue: string } {
  if (!config.fp16)
    return j === undefined ? { ok: true } : { ok: false, issue: 'fp16: present, but the run is not fp16' };
  if (typeof j !== 'object' || j === null || Array.isArray(j))
    return { ok: false, issue: "fp16: an fp16 run's checkpoint needs its loss scaler state (missing)" };
  const o = j as Record<string, unknown>;
  const int = (k: keyof Fp16Json, min: number) => typeof o[k] === 'number' && Number.isSafeInteger(o[k]) && o[k] >= min;
  if (typeof o.lossScale !== 'number' || !Number.isFinite(o.lossScale) || !(o.lossScale > 0))
    return { ok: false, issue: `fp16.lossScale must be a positive number, got ${JSON.stringify(o.lossScale)}` };
  for (const [k, min] of [
    ['scalerIter', 0],
    ['lastOverflowIter', -1],
    ['hysteresisLeft', 0],
    ['skippedSteps', 0],
  ] as const)
    if (!int(k, min))
      return { ok: false, issue: `fp16.${k} must be an integer >= ${min}, got ${JSON.stringify(o[k])}` };
  const extra = Object.keys(o).filter((k) => !FP16_KEYS.includes(k));
  if (extra.length > 0) return { ok: false, issue: `fp16.${extra[0]} is not a field of the fp16 section` };
  const n = (k: keyof Fp16Json) => o[k] as number;
  const scaler: ScalerState = {
    scale: n('lossScale'),
    iter: n('scalerIter'),
    lastOverflowIter: n('lastOverflowIter'),
    hysteresis: n('hysteresisLeft'),
  };
  // The scaler's own rules for a state (the run's static scale, at least min_loss_scale, the
  // hysteresis configured...), checked here, before any worker is started with it.
  try {
    lossScalerOf(config).restore(scaler);
  } catch (e) {
    return { ok: false, issue: `fp16: the loss scaler state cannot be this run's: ${(e as Error).message}` };
  }
  return { ok: true, value: { scaler, skippedSteps: n('skippedSteps') } };
}

const FP16_KEYS: readonly string[] = ['lossScale', 'scalerIter', 'lastOverflowIter', 'hysteresisLeft', 'skippedSteps'];
