// One micro-batch in flight on one device, for the modes that run a step in parts (DDP, ZeRO):
// Trainer.forward uploads the batch and records its forward, the loss and the copy of its stats;
// the pass then records its backward (with the optimizer in the same submit where nothing comes
// in between), and its stats come back once that work is submitted. A bucketed backward
// (bucketed.ts) records the pass's backward bucket by bucket instead.
import { Recorder } from '../gpu/recorder.ts';
import type { StepPlan } from '../nn/model.ts';
import type { Trainer } from './trainer.ts';
import type { StepResult } from './trainer-options.ts';

export class Pass {
  constructor(
    readonly trainer: Trainer,
    /** The recording the forward went into; the backward goes on in it. */
    readonly rec: Recorder,
    readonly plan: StepPlan,
    private readonly statsBuf: GPUBuffer,
  ) {}

  /** Uploads `batch`, records its forward, the loss and the stats copy; the loss gradient carries `lossScale`. */
  static async forward(trainer: Trainer, batch: Parameters<Trainer['upload']>[0], lossScale: number, label: string) {
    const plan = await trainer.upload(batch);
    plan.lossBackward.setParams({ scale: lossScale });
    const rec = new Recorder(trainer.gpu, label);
    trainer.recordForward(rec, plan, 'images' in batch);
    return new Pass(trainer, rec, plan, trainer.copyStats(rec));
  }

  /**
   * Records the backward and submits it: with the optimizer step (`update`: its learning rate) in
   * the same submit, and `after` (e.g. packing the gradients into halves) recorded behind it.
   */
  backward(o: { readonly update?: number; readonly after?: (rec: Recorder) => void } = {}): void {
    this.trainer.recordBackward(this.rec, this.plan);
    if (o.update !== undefined) this.trainer.recordUpdate(this.rec, o.update);
    o.after?.(this.rec);
    this.rec.submit();
  }

  /** The pass's loss and correct count, once its work is submitted. */
  stats(): Promise<StepResult> {
    const t = this.trainer;
    return t.gpu.tracer.span('readback stats', 'step', () => t.readStats(this.statsBuf, this.plan.batch));
  }
}
