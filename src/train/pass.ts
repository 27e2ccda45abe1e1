// One micro-batch in flight (Trainer.forward) between its forward and its stats: the recording
// its backward goes on in, the plan it was recorded with, and the staging buffer its stats (and the
// words a recording adds behind them, e.g. the GPU loss scaler's state) come back in.
import type { Recorder } from '../gpu/recorder.ts';
import type { StepPlan } from '../nn/model.ts';
import { EXTRA_AT, EXTRA_BYTES } from './step-stats.ts';
import type { Gpu } from '../gpu/device.ts';
import type { StepResult } from './trainer-options.ts';

/** What a pass needs of its trainer (Trainer has it). */
export interface PassHost {
  readonly gpu: Gpu;
  recordBackward(rec: Recorder, plan: StepPlan): void;
  recordUpdate(rec: Recorder, lr?: number): void;
  readStatsWithExtra(buf: GPUBuffer, batch: number): Promise<{ result: StepResult; extra: Uint32Array }>;
}

/**
 * One micro-batch in flight (Trainer.forward): its forward is recorded; the pass then records its
 * backward (with the optimizer in the same submit where nothing comes between), and its stats come
 * back once that work is submitted. A bucketed backward (bucketed.ts) records it bucket by bucket.
 */
export class Pass {
  constructor(
    private readonly trainer: PassHost,
    /** The recording the forward went into; the backward goes on in it. */
    readonly rec: Recorder,
    readonly plan: StepPlan,
    private readonly statsBuf: GPUBuffer,
  ) {}

  /**
   * Records the backward and submits it: with the optimizer step (`update`: its learning rate) in
   * the same submit, `before` recorded ahead of the loss gradient (e.g. the GPU loss scale copied
   * into it) and `after` (e.g. packing the gradients into halves) behind it.
   */
  backward(
    o: {
      readonly update?: number;
      readonly before?: (rec: Recorder) => void;
      readonly after?: (rec: Recorder) => void;
    } = {},
  ): void {
    o.before?.(this.rec);
    this.trainer.recordBackward(this.rec, this.plan);
    if (o.update !== undefined) this.trainer.recordUpdate(this.rec, o.update);
    o.after?.(this.rec);
    this.rec.submit();
  }

  /** The pass's loss and correct count, once its work is submitted. */
  async stats(): Promise<StepResult> {
    return (await this.statsWithExtra()).result;
  }

  /** Where the recording may copy up to 16 words that come back with the stats (statsWithExtra). */
  get extraSlot(): { readonly buffer: GPUBuffer; readonly offset: number; readonly bytes: number } {
    return { buffer: this.statsBuf, offset: EXTRA_AT, bytes: EXTRA_BYTES };
  }

  /** stats(), with the words copied into extraSlot: one readback. */
  statsWithExtra(): Promise<{ result: StepResult; extra: Uint32Array }> {
    const t = this.trainer;
    return t.gpu.tracer.span('readback stats', 'step', () => t.readStatsWithExtra(this.statsBuf, this.plan.batch));
  }
}
