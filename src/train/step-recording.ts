// Records a training step's phases into one Recorder, in the order a step runs them: input
// normalisation, the forward and the loss; the loss gradient and the backward, layer by layer;
// clipping, the optimizer (fp16 / bf16: and the master's cast into the halves) and the zeroing of
// the gradients. Trainer.step records all three into one submit; the distributed modes record
// them with communication in between.
import type { Recorder } from '../gpu/recorder.ts';
import type { StepPlan } from '../nn/model.ts';
import type { TrainerParts } from './trainer-build.ts';

/** Records input normalisation (for byte batches), forward and the loss. */
export function recordForward(rec: Recorder, plan: StepPlan, bytes: boolean): void {
  rec.phase('forward');
  if (bytes) rec.dispatch(plan.normalize);
  rec.layer('normalize');
  for (const op of plan.forward) {
    rec.dispatch(op);
    rec.layer(op.label);
  }
  rec.dispatch(plan.lossForward);
  rec.layer('loss');
}

/**
 * Records the loss gradient (unless `withLoss` is false: DataParallel writes dlogits from device
 * 0's loss over the gathered batch) and the backward; `onSegment` runs after each layer.
 */
export function recordBackward(
  rec: Recorder,
  plan: StepPlan,
  onSegment?: (segment: StepPlan['backward'][number]) => void,
  withLoss = true,
): void {
  rec.phase('backward');
  if (withLoss) rec.dispatch(plan.lossBackward);
  rec.layer('loss.backward');
  for (const s of plan.backward) {
    for (const op of s.ops) rec.dispatch(op);
    rec.layer(`${s.layer}.backward`);
    onSegment?.(s);
  }
}

/** Records clipping (if on), the optimizer step (if this device has one) and the zeroing of the gradients. */
export function recordUpdate(
  rec: Recorder,
  t: Pick<TrainerParts, 'clipper' | 'optimizer' | 'master' | 'grads'>,
  lr?: number,
): void {
  rec.phase('optimizer');
  t.clipper?.record(rec);
  t.optimizer?.record(rec, lr);
  if (t.optimizer) t.master?.recordCast(rec);
  rec.clear(t.grads);
}
