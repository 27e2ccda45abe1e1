// The whole model's optimizer state from every rank's slice (ZeRO's shards, each rank's segments of
// the flat model; replicated modes give the same whole state on every rank).
import type { Snapshot, TrainPosition } from '../checkpoint/checkpoint.ts';
import type { TrainConfig } from '../config.ts';
import type { OptimizerState } from '../optim/optimizer.ts';
import { MASTER_BUFFER, type RankFp16State, type RankOptimizerState, type RankRestore } from './protocol.ts';

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

/**
 * The run's snapshot from rank 0's parameters, the gathered optimizer state and (fp16) rank 0's
 * loss scaler: a mixed-precision run's model file holds the float32 master the optimizer steps,
 * not the halves.
 */
export function snapshotOf(
  config: TrainConfig,
  position: TrainPosition,
  params: Float32Array,
  optimizer: OptimizerState | null,
  fp16: RankFp16State | null | undefined,
): Snapshot {
  if (!config.fp16 && !config.bf16) return { config, position, params, optimizer };
  const { [MASTER_BUFFER]: master, ...buffers } = optimizer?.buffers ?? {};
  if (!master || !optimizer) throw new Error('the ranks returned no fp32 master for a mixed-precision checkpoint');
  const base = { config, position, params: master, optimizer: { ...optimizer, buffers } };
  if (!config.fp16) return base;
  if (!fp16) throw new Error("rank 0 returned no loss scaler for an fp16 run's checkpoint");
  return { ...base, fp16 };
}

/** What every rank needs of a checkpoint to continue it (an fp16 run: also its scaler and master). */
export function rankRestore(s: Snapshot): RankRestore {
  return {
    globalStep: s.position.globalStep,
    optimizer: s.optimizer,
    ...(s.config.fp16 || s.config.bf16 ? { master: s.params } : {}),
    ...(s.fp16 ? { fp16: s.fp16 } : {}),
    ...(s.position.ledger ? { ledger: s.position.ledger } : {}),
  };
}
