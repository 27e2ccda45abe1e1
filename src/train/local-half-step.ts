// One data-parallel worker with 16-bit gradients whose steps are pipelined: the whole step in one
// submit (the backward; every gradient rounded to 16 bits and back in place in one dispatch, fp16's
// also checked for overflow and unscaled; and the update),
// fp16's DeepSpeed loss scaler deciding on the GPU (gpu-scaler.ts) so that the next step can be
// submitted before this one's overflow flag is read back.
import type { GpuLossScaler, GpuScalerState } from './gpu-scaler.ts';
import type { HalfGradients } from './half-grads.ts';
import type { Pass } from './pass.ts';
import type { Trainer } from './trainer.ts';

export class LocalHalfStep {
  constructor(
    private readonly trainer: Trainer,
    private readonly half: HalfGradients,
    /** fp16: the loss scaler on the GPU; null: bf16. */
    private readonly scaler: GpuLossScaler | null,
  ) {}

  /**
   * Sets the GPU loss scaler's state from the host's (only with no step in flight): the scale
   * 2^`exp` (dynamic) and DeepSpeed's counters, and the optimizer's steps taken.
   */
  loadScaler(s: Parameters<GpuLossScaler['load']>[0]): void {
    if (!this.scaler) throw new Error('loadScaler: no loss scaler on the GPU');
    this.scaler.load(s, this.trainer.optimizer?.steps ?? 0);
  }

  /**
   * One worker's whole step in one submit, pipelined (ParallelMode.pipelines): `pass`'s backward,
   * then bf16: every gradient rounded to bfloat16 and back in place, and the update; fp16: the GPU
   * loss scaler's prepare ahead of the loss gradient (the scale's factor, `invCount` x scale, copied into it;
   * `staticScale`: a static scale, which the host already gave it), the gradients' round trip
   * through halves with the overflow check and unscale (nothing is sent, so no halves are stored),
   * the scaler's update and the update it gates. The optimizer's Params are given for the next
   * `inFlight` + 1 step numbers (the steps in flight may still skip). fp16: the scaler's state after
   * the step comes back with the pass's stats (Pass.statsWithExtra, then decodeScaler).
   */
  localStep(
    pass: Pass,
    lr: number,
    fp16: { readonly staticScale: number | null; readonly invCount: number; readonly inFlight: number } | null,
  ): void {
    const { trainer, half, scaler } = this;
    if (!fp16) {
      pass.backward({
        after: (rec) => {
          half.recordRoundTrip(rec); // bf16: rounded to bfloat16 and widened (exact), in place
          trainer.recordUpdate(rec, lr);
        },
      });
      return;
    }
    const opt = trainer.optimizer;
    if (!scaler || !opt) throw new Error('localStep: fp16 needs the loss scaler on the GPU and an optimizer');
    const first = opt.steps + 1;
    const candidates = Array.from({ length: fp16.inFlight + 1 }, (_, i) => opt.stepParams(first + i, lr));
    const op = candidates[0]?.op;
    if (!op) throw new Error('localStep: no optimizer Params');
    pass.backward({
      before: (rec) => {
        if (fp16.staticScale === null) scaler.recordPrepare(rec, fp16.invCount, pass.plan.lossBackward);
      },
      after: (rec) => {
        half.recordRoundTrip(rec, fp16.staticScale ?? scaler.unscaleSlot);
        scaler.recordUpdate(
          rec,
          first,
          candidates.map((c) => c.params),
          op,
        );
        trainer.recordGatedUpdate(rec, scaler);
        scaler.recordStateCopy(rec, pass.extraSlot);
      },
    });
  }

  /** The GPU loss scaler's state after an fp16 localStep, from the words that came back with its stats. */
  decodeScaler(words: Uint32Array): GpuScalerState {
    if (!this.scaler) throw new Error('decodeScaler: no loss scaler on the GPU');
    return this.scaler.decodeState(words);
  }
}
