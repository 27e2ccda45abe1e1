// fp16 loss scaling as DeepSpeed does it (deepspeed/runtime/fp16/loss_scaler.py, read at
// deepspeedai/DeepSpeed edaa722): a static scale (fp16.loss_scale > 0) or DynamicLossScaler
// (loss_scale 0): start at 2^initial_scale_power; on an overflowing step skip it and, once
// hysteresis overflows have been absorbed, halve the scale (not below min_loss_scale); after
// loss_scale_window clean steps since the last overflow, double it. Pure bookkeeping: the caller
// detects overflow (any inf/NaN gradient, on any rank) and skips the optimizer step (and, like
// DeepSpeed, the lr scheduler step) when update() says so.

export interface ScalerUpdate {
  /** Skip this optimizer step (gradients overflowed). */
  readonly skip: boolean;
  /** What DeepSpeed logs at info level on rank 0 for this update, word for word. */
  readonly messages: readonly string[];
}

export interface LossScaler {
  /** The scale the next backward multiplies the loss by. */
  readonly scale: number;
  readonly dynamic: boolean;
  /** Records one optimizer step's overflow flag (DeepSpeed's update_scale). */
  update(overflow: boolean): ScalerUpdate;
  /** What a checkpoint keeps (DeepSpeed's loss scaler state: cur_scale, cur_iter, last_overflow_iter, cur_hysteresis). */
  state(): ScalerState;
  /** Continues from a checkpoint's state; throws naming the field a state this scaler cannot have. */
  restore(s: ScalerState): void;
}

/** A loss scaler's whole state. */
export interface ScalerState {
  readonly scale: number;
  /** Steps recorded so far (DeepSpeed's cur_iter). */
  readonly iter: number;
  /** The step of the last overflow, -1 before any. */
  readonly lastOverflowIter: number;
  /** Overflows still absorbed before the scale drops. */
  readonly hysteresis: number;
}

/**
 * loss_scale > 0: the scale never changes. DeepSpeed's ZeRO-1/2 optimizer still checks gradients
 * and skips a step that overflowed, silently (only the dynamic scaler logs).
 */
export class StaticLossScaler implements LossScaler {
  readonly dynamic = false;
  constructor(readonly scale: number) {
    if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`static loss scale must be > 0 (got ${scale})`);
  }

  update(overflow: boolean): ScalerUpdate {
    return { skip: overflow, messages: [] };
  }

  state(): ScalerState {
    return { scale: this.scale, iter: 0, lastOverflowIter: -1, hysteresis: 0 };
  }

  restore(s: ScalerState): void {
    if (s.scale !== this.scale)
      throw new RangeError(`scale ${s.scale} is not this run's static loss scale ${this.scale}`);
  }
}

export interface DynamicLossScalerOptions {
  /** fp16.initial_scale_power: the first scale is 2 ** this (DeepSpeed default 16). */
  readonly initialScalePower: number;
  /** fp16.loss_scale_window (default 1000). */
  readonly scaleWindow: number;
  /** fp16.min_loss_scale (default 1). */
  readonly minScale: number;
  /** fp16.hysteresis, DeepSpeed's delayed_shift (default 2). */
  readonly hysteresis: number;
  /** fp16.consecutive_hysteresis (default false). */
  readonly consecutiveHysteresis: boolean;
}

/** The fp16 section's DeepSpeed defaults (DeepSpeedFP16Config). */
export const DYNAMIC_DEFAULTS: DynamicLossScalerOptions = {
  initialScalePower: 16,
  scaleWindow: 1000,
  minScale: 1,
  hysteresis: 2,
  consecutiveHysteresis: false,
};

/** Python's int() of a float scale, as DeepSpeed's log line prints it. */
const int = (x: number) => String(Math.trunc(x));

export class DynamicLossScaler implements LossScaler {
  readonly dynamic = true;
  private curScale: number;
  private curIter = 0;
  private lastOverflowIter = -1;
  private curHysteresis: number;
  private readonly scaleFactor = 2.0;

  constructor(private readonly o: DynamicLossScalerOptions = DYNAMIC_DEFAULTS) {
    if (!Number.isInteger(o.scaleWindow) || o.scaleWindow <= 0)
      throw new RangeError(`loss_scale_window must be an integer > 0 (got ${o.scaleWindow})`);
    if (!(o.minScale > 0)) throw new RangeError(`min_loss_scale must be > 0 (got ${o.minScale})`);
    this.curScale = 2 ** o.initialScalePower;
    this.curHysteresis = o.hysteresis;
  }

  get scale(): number {
    return this.curScale;
  }

  /** Overflows still absorbed before the scale drops (DeepSpeed's cur_hysteresis). */
  get hysteresisLeft(): number {
    return this.curHysteresis;
  }

  update(overflow: boolean): ScalerUpdate {
    const messages: string[] = [];
    if (overflow) {
      if (this.o.hysteresis === 1 || this.curHysteresis === 1) {
        // DeepSpeed raises (raise_error_at_min_scale defaults to True) rather than train on at the floor.
        if (this.curScale === this.o.minScale)
          throw new Error('Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.');
        const next = Math.max(this.curScale / this.scaleFactor, this.o.minScale);
        messages.push(
          `[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: ${int(this.curScale)}, reducing to ${int(next)}`,
        );
        this.curScale = next;
      } else {
        messages.push(
          `[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: ${int(this.curScale)}, ` +
            `but hysteresis is ${this.curHysteresis}. Reducing hysteresis to ${this.curHysteresis - 1}`,
        );
        this.curHysteresis -= 1;
      }
      this.lastOverflowIter = this.curIter;
    } else {
      if (this.o.consecutiveHysteresis) {
        messages.push(`Consecutive hysteresis is enabled. Restoring hysteresis to ${this.o.hysteresis}`);
        this.curHysteresis = this.o.hysteresis;
      }
      const stableInterval = this.curIter - this.lastOverflowIter - 1;
      if (stableInterval > 0 && stableInterval % this.o.scaleWindow === 0) {
        if (!this.o.consecutiveHysteresis) this.curHysteresis = this.o.hysteresis;
        this.curScale *= this.scaleFactor;
      }
    }
    this.curIter += 1;
    return { skip: overflow, messages };
  }

  state(): ScalerState {
    return {
      scale: this.curScale,
      iter: this.curIter,
      lastOverflowIter: this.lastOverflowIter,
      hysteresis: this.curHysteresis,
    };
  }

  restore(s: ScalerState): void {
    const int = (v: number, lo: number, hi: number) => Number.isInteger(v) && v >= lo && v <= hi;
    if (!Number.isFinite(s.scale) || !(s.scale >= this.o.minScale))
      throw new RangeError(`scale ${s.scale} is not a finite loss scale of at least min_loss_scale ${this.o.minScale}`);
    if (!int(s.iter, 0, Number.MAX_SAFE_INTEGER)) throw new RangeError(`iter ${s.iter} is not a step count`);
    if (!int(s.lastOverflowIter, -1, s.iter - 1))
      throw new RangeError(`lastOverflowIter ${s.lastOverflowIter} is not -1 or a step before iter ${s.iter}`);
    if (!int(s.hysteresis, 1, this.o.hysteresis))
      throw new RangeError(`hysteresis ${s.hysteresis} is not between 1 and the configured ${this.o.hysteresis}`);
    this.curScale = s.scale;
    this.curIter = s.iter;
    this.lastOverflowIter = s.lastOverflowIter;
    this.curHysteresis = s.hysteresis;
  }
}
