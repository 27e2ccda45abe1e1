// The whole model's optimizer state from every rank's slice (ZeRO's shards, each rank's segments of
// the flat model; replicated modes give the same whole state on every rank).
import type { TrainPosition } from '../checkpoint/checkpoint.ts';
import type { OptimizerState } from '../optim/optimizer.ts';
import type { RankOptimizerState } from './protocol.ts';

export function gatherOptimizer(states: readonly RankOptimizerState[], total: number): OptimizerState | null {
  let optimizer: OptimizerState | null = null;
  const buffers: Record<string, Float32Array> = {};
  for (const st of states) {
    if (!st) continue;
    optimizer ??= { step: st.step, buffers };
    for (const [name, local] of Object.entries(st.buffers)) {
      const flat = (buffers[name] ??= new Float32Array(total));
      for (const [at, from, n] of st.segments) flat.set(local.subarray(from, from + n), at);
    }
  }
  return optimizer;
}

/** A run resumed at step `fromStep` of an epoch needs epochs of the checkpoint's length. */
export function checkResumedEpoch(from: TrainPosition, fromStep: number, steps: number): void {
  if (fromStep > 0 && steps !== from.stepsPerEpoch)
    throw new Error(
      `the checkpoint stopped at step ${fromStep} of an epoch of ${from.stepsPerEpoch} steps, ` +
        `but this run's epochs have ${steps}: resume mid-epoch with the same data, batch size and workers`,
    );
}
