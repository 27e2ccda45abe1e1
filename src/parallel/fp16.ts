// fp16 mixed precision in the ring modes, as DeepSpeed's fp16 optimizer runs it: the loss is
// multiplied by the loss scale before backward (the loss gradient's scale), the gradients are
// rounded to fp16 and reduced as fp16, then checked for inf/NaN; an overflowing step is skipped
// (no optimizer step, no lr schedule step) and the scaler decides the next scale. Every rank sees
// the same reduced gradients, so every rank's scaler takes the same decisions; rank 0's log lines
// are DeepSpeed's.
import type { TrainConfig } from '../config.ts';
import { DynamicLossScaler, StaticLossScaler, type LossScaler } from '../optim/loss-scaler.ts';
import type { GpuScalerConfig } from '../train/gpu-scaler.ts';

/** What an fp16 step reports. */
export interface Fp16StepInfo {
  /** The loss scale this step's backward used (DeepSpeed's "Attempted loss scale"). */
  readonly lossScale: number;
  /** The step overflowed and the optimizer did not step. */
  readonly skipped: boolean;
  /** DeepSpeed's log lines for this step (overflow, hysteresis), word for word. */
  readonly messages: readonly string[];
}

/** The loss scaler a configuration asks for: static when fp16.loss_scale > 0, else dynamic. */
export function lossScalerOf(c: TrainConfig): LossScaler {
  if (c.fp16LossScale > 0) return new StaticLossScaler(c.fp16LossScale);
  return new DynamicLossScaler({
    initialScalePower: c.fp16InitialScalePower,
    scaleWindow: c.fp16LossScaleWindow,
    minScale: c.fp16MinLossScale,
    hysteresis: c.fp16Hysteresis,
    consecutiveHysteresis: c.fp16ConsecutiveHysteresis,
  });
}

/** Records one step's overflow flag with the scaler: whether to skip, and what to report. */
export function scalerStep(scaler: LossScaler, overflow: boolean): Fp16StepInfo {
  const lossScale = scaler.scale;
  const u = scaler.update(overflow);
  return { lossScale, skipped: u.skip, messages: u.messages };
}

/** Whether x is 2^k for an integer k. */
const powerOfTwo = (x: number) => x > 0 && 2 ** Math.round(Math.log2(x)) === x;

/**
 * Whether DDP's fp16 or bf16 steps on one worker run pipelined (ParallelMode.pipelines), one submit
 * each, fp16's loss scaler on the GPU (train/gpu-scaler.ts). Not where the GPU could not take the
 * host's decisions exactly: an lr schedule (a skipped fp16 step must not advance it, and the
 * schedule is the host's), gradient accumulation, more than one worker (the ring is on the host),
 * a dynamic scale that could leave the powers of two (min_loss_scale not a power of two).
 */
export function halvesPipelined(c: TrainConfig): boolean {
  if (c.workers !== 1 || c.gradAccum !== 1) return false;
  if (c.bf16) return true;
  if (!c.fp16 || c.schedule !== 'none') return false;
  return c.fp16LossScale > 0 || (powerOfTwo(c.fp16MinLossScale) && Number.isInteger(c.fp16InitialScalePower));
}

/** The loss scaler of a halvesPipelined fp16 configuration, as the GPU runs it. */
export function gpuScalerOf(c: TrainConfig): GpuScalerConfig {
  return {
    dynamic: !(c.fp16LossScale > 0),
    hysteresis: c.fp16Hysteresis,
    consecutiveHysteresis: c.fp16ConsecutiveHysteresis,
    scaleWindow: c.fp16LossScaleWindow,
    minExp: c.fp16LossScale > 0 ? 0 : Math.round(Math.log2(c.fp16MinLossScale)),
  };
}
