// A rank's optimizer state for checkpoints: which optimizer it steps (the trainer's, or ZeRO-3's
// own) and where its slice lies in the flat model; loading a checkpoint's slice into it.
import type { ModeRunner, OptimizerView } from '../parallel/mode.ts';
import type { Trainer } from '../train/trainer.ts';
import type { EpochPlan } from '../data/plan.ts';
import type { BatchSource } from '../data/source.ts';
import type { RankRestore } from './protocol.ts';

/** The optimizer this rank steps and where its slice lies in the flat model. */
export function optimizerView(st: { trainer: Trainer; runner: ModeRunner }): OptimizerView {
  const t = st.trainer;
  return (
    st.runner.optimizerView?.() ?? {
      optimizer: t.optimizer,
      segments: t.optimizer ? [[t.shardOffset, 0, t.optimizer.count]] : [],
    }
  );
}

/** Loads this rank's slice of a checkpoint's optimizer state. */
export function restoreOptimizer(v: OptimizerView, r: RankRestore): void {
  if (!v.optimizer || !r.optimizer) return;
  const count = v.optimizer.count;
  const buffers: Record<string, Float32Array> = {};
  for (const [name, full] of Object.entries(r.optimizer.buffers)) {
    const local = new Float32Array(count);
    for (const [flat, at, n] of v.segments) local.set(full.subarray(flat, flat + n), at);
    buffers[name] = local;
  }
  v.optimizer.loadState({ step: r.optimizer.step, buffers });
}

/** Draws (and drops) the batches of an epoch's first `steps` steps: the augmentation stream then stands where it stood. */
export function redrawAugmentation(source: BatchSource, plan: EpochPlan, steps: number): void {
  for (const micro of plan.steps.slice(0, steps)) for (const mb of micro) source.trainBatch(mb.start, mb.count);
}
