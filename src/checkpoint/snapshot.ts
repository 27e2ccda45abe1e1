// What a checkpoint holds for a run to continue: where the run is (with, mid-epoch, the sample
// ledger of the epoch) and the whole state (parameters, optimizer, fp16 scaler). checkpoint.ts
// encodes it as files and reads it back.
import type { TrainConfig } from '../config.ts';
import type { SampleLedger } from '../data/ledger.ts';
import type { OptimizerState } from '../optim/optimizer.ts';
import type { Fp16Snapshot } from './fp16-state.ts';

/** Where a run is: the next step to run is `step` of `epoch`; `globalStep` optimizer steps are done. */
export interface TrainPosition {
  readonly epoch: number;
  readonly step: number;
  readonly globalStep: number;
  /** Optimizer steps per epoch of the run that wrote it (its sampler's shard, batch and accumulation). */
  readonly stepsPerEpoch: number;
  /** Mid-epoch: which samples of the epoch each rank has consumed (ledger-record.ts). */
  readonly ledger?: SampleLedger;
}

/** Everything a run needs to continue exactly where it was. */
export interface Snapshot {
  readonly config: TrainConfig;
  readonly position: TrainPosition;
  /** The whole model, flat in state_dict order (fp16: the float32 master weights). */
  readonly params: Float32Array;
  /** The whole model's optimizer state, flat in parameter order (gathered from ZeRO's shards). */
  readonly optimizer: OptimizerState | null;
  /** An fp16 run's loss scaler and skipped steps (fp16-state.ts). */
  readonly fp16?: Fp16Snapshot;
}
