// What a Trainer is built from (its options and gradient layouts) and what a step returns.
import type { ModelSpec, ParamSpec } from '../nn/spec.ts';
import type { OptimizerConfig } from '../optim/optimizer.ts';
import type { Timer } from '../gpu/timer.ts';
import { parseTuning, tuningFor, type Tuning } from '../gpu/tuning.ts';
import type { AdapterSummary } from '../gpu/device.ts';

export interface TrainerOptions {
  readonly spec: ModelSpec;
  readonly maxBatch: number;
  /** null: no optimizer on this device (DataParallel's replicas). */
  readonly optimizer: OptimizerConfig | null;
  /**
   * The contiguous slice of the arena this device's optimizer updates and keeps state for (ZeRO);
   * default all. `ownGradients`: the optimizer reads the slice's reduced gradients from a buffer
   * of their own (`shardGrads`, written with writeShardGrads) instead of the gradient arena.
   */
  readonly shard?: { readonly offset: number; readonly count: number; readonly ownGradients?: boolean };
  /** Where backward writes each parameter's gradient; default a full arena in parameter order. */
  readonly gradientLayout?: GradientLayout;
  /**
   * Where the layers read each parameter; default a full arena in parameter order. ZeRO-3 gives a
   * working buffer that holds one layer (or one piece of a large layer) at a time: setParams and
   * readParams then refuse, the mode's runner owns the parameters.
   */
  readonly parameterLayout?: GradientLayout;
  /** clip_grad_norm_(max_norm) before each optimizer step; 0 or absent: off. */
  readonly clipGradNorm?: number;
  /**
   * fp16 mixed precision (DeepSpeed's fp16): the layers read the parameters as packed halves
   * (`params`, 2 bytes each), the optimizer updates a float32 master copy of its slice
   * (`master`, counted as optimizer state) and recordUpdate casts the slice back into the halves.
   * The shard's offset must be even (a word boundary). With a parameterLayout (ZeRO-3) the working
   * buffer holds halves and there is no master here: the mode's runner keeps it for its partition.
   */
  readonly fp16?: boolean;
  /**
   * Whether the saved activations (the input, the conv and pool outputs) are stored as packed
   * halves (nn/model.ts, gpu/half-acts.ts); default: as `fp16` (bf16 runs keep float32 activations). The tests set it apart from `fp16`
   * to check the parameters' and the activations' halves one at a time.
   */
  readonly halfActivations?: boolean;
  /** bf16 mixed precision (DeepSpeed's bf16): as fp16, with bfloat16 pairs (src/numeric/bf16.ts). */
  readonly bf16?: boolean;
  readonly tuning?: Tuning;
}

/** An arena's size (elements) and each parameter's offset in it (gradients, or ZeRO-3's parameters). */
export interface GradientLayout {
  readonly label: string;
  readonly size: number;
  readonly offset: (p: ParamSpec) => number;
}

export interface StepResult {
  readonly batch: number;
  readonly loss: number;
  readonly correct: number;
  /** Pre-clip global gradient norm, when clipping is on. */
  readonly gradNorm?: number;
  /** GPU milliseconds per phase, when a Timer was attached. */
  readonly gpuMs?: Record<string, number>;
}

/** Options of one Trainer.step. */
export interface StepOptions {
  /** false inside gradient accumulation: no optimizer step. */
  readonly update?: boolean;
  readonly lr?: number;
  /** Times the step's phases (bench). */
  readonly timer?: Timer;
  /** With a timer: every kernel in its own timed pass (bench --profile). */
  readonly profile?: boolean;
}

/** `o` with the tuning `json` (parseTuning over `adapter`'s own tuning) where one is given. */
export function withTuning(o: TrainerOptions, json: string | undefined, adapter: AdapterSummary): TrainerOptions {
  return json ? { ...o, tuning: parseTuning(json, tuningFor(adapter)) } : o;
}
