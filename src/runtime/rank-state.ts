// A rank's optimizer state for checkpoints: which optimizer it steps (the trainer's, or ZeRO-3's
// own) and where its slice lies in the flat model; loading a checkpoint's slice into it.
import { readFloats, writeFloats } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import type { ModeRunner, OptimizerView } from '../parallel/mode.ts';
import type { Trainer } from '../train/trainer.ts';
import type { EpochPlan } from '../data/plan.ts';
import type { BatchSource } from '../data/source.ts';
import { MASTER_BUFFER, type RankOptimizerState, type RankRestore } from './protocol.ts';

/** The optimizer this rank steps and where its slice lies in the flat model. */
/** The parts of a rank's state these read and restore. */
interface RankParts {
  readonly gpu: Gpu;
  readonly trainer: Trainer;
  readonly runner: ModeRunner;
}

function optimizerView(st: { trainer: Trainer; runner: ModeRunner }): OptimizerView {
  const t = st.trainer;
  return (
    st.runner.optimizerView?.() ?? {
      optimizer: t.optimizer,
      segments: t.optimizer ? [[t.shardOffset, 0, t.optimizer.count]] : [],
      master: t.optimizer ? (t.master?.buffer ?? null) : null,
    }
  );
}

/** Loads this rank's slice of a checkpoint's optimizer state. */
function restoreOptimizer(v: OptimizerView, r: RankRestore): void {
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

/** This rank's optimizer state; fp16: with its float32 master slice as MASTER_BUFFER. */
export async function readRankOptimizer(st: RankParts): Promise<RankOptimizerState> {
  const v = optimizerView(st);
  if (!v.optimizer) return null;
  const state = await v.optimizer.readState();
  const buffers: Record<string, Float32Array> = { ...state.buffers };
  if (v.master) buffers[MASTER_BUFFER] = await readFloats(st.gpu, v.master, 0, v.optimizer.count);
  return { step: state.step, segments: v.segments, buffers };
}

/** Continues a checkpoint on this rank: its optimizer slice; fp16/bf16: the exact master slice; fp16: the loss scaler, the skipped steps. */
export function restoreRank(st: RankParts & { skipped: number }, r: RankRestore): void {
  const v = optimizerView(st);
  restoreOptimizer(v, r);
  if (r.master) restoreMaster(st.gpu, v, r.master);
  if (!r.fp16) return;
  st.runner.lossScaler?.()?.restore(r.fp16.scaler);
  st.skipped = r.fp16.skippedSteps;
}

/** fp16: sets this rank's float32 master slice from a checkpoint's master (the whole model), exactly. */
function restoreMaster(gpu: Gpu, v: OptimizerView, full: Float32Array): void {
  if (!v.master || !v.optimizer) return;
  const local = new Float32Array(v.optimizer.count);
  for (const [flat, at, n] of v.segments) local.set(full.subarray(flat, flat + n), at);
  writeFloats(gpu, v.master, 0, local);
}

/** Draws (and drops) the batches of an epoch's first `steps` steps: the augmentation stream then stands where it stood. */
export function redrawAugmentation(source: BatchSource, plan: EpochPlan, steps: number): void {
  for (const micro of plan.steps.slice(0, steps)) for (const mb of micro) source.trainBatch(mb.start, mb.count);
}
