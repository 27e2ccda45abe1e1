// What a training run reports, step by step (rank 0's loss, like the `if rank == 0` of PyTorch's DDP tutorial), with
// every worker's memory, so the page and the CLI show the same measured numbers.
import type { RecorderState } from '../comm/flight-recorder.ts';
import type { EpochProof } from '../data/ledger.ts';
import type { TrainConfig } from '../config.ts';
import type { MemorySnapshot } from '../gpu/memory.ts';
import type { TransferEvent } from '../comm/link.ts';
import type { Span } from '../trace/tracer.ts';
import type { Fp16StepInfo } from '../parallel/fp16.ts';
import type { FailureKind } from './failure.ts';
import type { RankInfo, RankStepLog } from './protocol.ts';

export interface WorkerStat {
  readonly rank: number;
  readonly memory: MemorySnapshot;
  readonly ms: number;
  readonly commMs: number;
  readonly commBytes: number;
}

/** A worker's line of a step event, from its step log. */
export function workerStat(l: RankStepLog): WorkerStat {
  return { rank: l.rank, memory: l.memory, ms: l.ms, commMs: l.commMs, commBytes: l.commBytes };
}

export type TrainEvent =
  | { readonly type: 'start'; readonly config: TrainConfig; readonly ranks: readonly RankInfo[] }
  | {
      readonly type: 'epoch-start';
      readonly epoch: number;
      readonly steps: number;
      readonly shards: readonly Int32Array[];
      readonly datasetSize: number;
    }
  | {
      readonly type: 'step';
      readonly epoch: number;
      readonly step: number;
      readonly steps: number;
      /** Rank 0's loss (DataParallel: the loss over the whole batch). */
      readonly loss: number;
      /** The learning rate this step's optimizer used (the schedule's, or the configured one). */
      readonly lr: number;
      /** Every rank's loss on its own batch (DataParallel replicas: NaN). */
      readonly rankLosses: readonly number[];
      /** Rank 0's accuracy on its batch. */
      readonly accuracy: number;
      /** Samples in the step over all ranks. */
      readonly samples: number;
      readonly imagesPerSec: number;
      readonly ms: number;
      readonly workers: readonly WorkerStat[];
      readonly transfers: readonly TransferEvent[];
      /** Each rank's timeline spans (index = rank), when the run traces. */
      readonly spans?: readonly (readonly Span[])[];
      /** fp16 (rank 0's): the loss scale this step used, whether it was skipped, DeepSpeed's log lines. */
      readonly fp16?: Fp16StepInfo;
    }
  | ({
      /**
       * An epoch resumed mid-way from a checkpoint has ended: how often each of its samples was
       * used over the ranks before and after the checkpoint (src/data/ledger.ts epochProof).
       */
      readonly type: 'ledger';
    } & EpochProof)
  | {
      readonly type: 'check';
      readonly epoch: number;
      readonly step: number;
      readonly identical: boolean;
      readonly checksums: readonly string[];
    }
  | {
      readonly type: 'epoch';
      readonly epoch: number;
      readonly trainLoss: number;
      readonly trainAccuracy: number;
      readonly testLoss: number;
      readonly testAccuracy: number;
      readonly testSamples: number;
      readonly imagesPerSec: number;
      readonly seconds: number;
      readonly workers: readonly WorkerStat[];
    }
  | {
      /** A checkpoint was saved: the run continues from step `step` of `epoch` with `globalStep` steps done. */
      readonly type: 'checkpoint';
      readonly epoch: number;
      readonly step: number;
      readonly globalStep: number;
      readonly stepsPerEpoch: number;
      /** Where it went (a directory, or the page's IndexedDB entry). */
      readonly where: string;
    }
  | {
      /** A rank failed and the run restarts its workers from the last checkpoint (or the start). */
      readonly type: 'restart';
      readonly attempt: number;
      readonly maxRestarts: number;
      readonly rank: number;
      readonly kind: FailureKind;
      readonly message: string;
      /** The global step the run continues from. */
      readonly fromStep: number;
    }
  | {
      readonly type: 'done';
      readonly stopped: boolean;
      /** A traced run: each rank's spans that landed after its last step log (its last steps' GPU spans). */
      readonly spans?: readonly (readonly Span[])[];
    };

/** A rank failed: it threw, exited, lost its device or stopped answering. */
export class RankFailedError extends Error {
  constructor(
    readonly rank: number,
    /** How it failed: exited, threw, did not answer in time, lost its GPU device, or its link broke. */
    readonly kind: FailureKind,
    readonly during: string,
    readonly reason: string,
    /**
     * Every rank's collective flight recorders at the failure (index = rank; null: the worker did
     * not answer), and their report, which the message ends with.
     */
    readonly collectives?: { readonly states: readonly (readonly RecorderState[] | null)[]; readonly report: string },
  ) {
    super(`rank ${rank} failed during ${during}: ${reason}${collectives ? `\n${collectives.report}` : ''}`);
    this.name = 'RankFailedError';
  }
}

/** The replicas disagree: parameters diverged (a bug, or non-determinism that should not be there). */
export class ReplicaMismatchError extends Error {
  constructor(
    readonly step: number,
    readonly checksums: readonly string[],
  ) {
    super(
      `replicas diverged at step ${step}: parameter checksums ${checksums.map((c, r) => `rank ${r} ${c.slice(0, 12)}`).join(', ')}`,
    );
    this.name = 'ReplicaMismatchError';
  }
}
