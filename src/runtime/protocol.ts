// The typed protocol between the coordinator and each rank's worker (comlink; plain,
// structured-clone-safe data; MessagePorts travel in the transfer list). No `any` crosses it.
import type { TrainConfig } from '../config.ts';
import type { AdapterSummary } from '../gpu/device.ts';
import type { MemorySnapshot } from '../gpu/memory.ts';
import type { RingPorts, TransferEvent, Transport } from '../comm/link.ts';
import type { Span } from '../trace/tracer.ts';
import type { Fp16StepInfo } from '../parallel/fp16.ts';
import type { RecorderState } from '../comm/flight-recorder.ts';
import type { SampleLedger } from '../data/ledger.ts';
import type { ScalerState } from '../optim/loss-scaler.ts';

/** Where a rank's data comes from. */
export type DataSpec =
  /** A dataset in the browser's IndexedDB (src/data/store-idb.ts). */
  | { readonly kind: 'idb'; readonly dataset: string }
  /** A dataset in a directory store (Node, src/data/store-file-node.ts). */
  | { readonly kind: 'file'; readonly dir: string; readonly dataset: string }
  /** Float tensors used as they are (no normalisation): parity fixtures and tests. */
  | {
      readonly kind: 'tensors';
      readonly x: Float32Array;
      readonly y: Int32Array;
      readonly testX?: Float32Array;
      readonly testY?: Int32Array;
    };

export interface RankInit {
  readonly rank: number;
  readonly world: number;
  readonly config: TrainConfig;
  /** null for DataParallel replicas, which receive their chunks from rank 0. */
  readonly data: DataSpec | null;
  /** This rank's two ring ports (next: to rank+1, prev: from rank-1). */
  readonly ring: RingPorts;
  /** DataParallel only: a 2-rank ring with each peer (rank 0 has one per replica; replicas one with rank 0). */
  readonly pairs: readonly { readonly peer: number; readonly ports: RingPorts }[];
  /** Rank 0's initial parameters (flat, state_dict order); absent: PyTorch-identical init from config.seed. */
  readonly initialParams?: Float32Array;
  /** Record the ring's chunk transfers (for the teaching page's ring view). */
  readonly recordTransfers?: boolean;
  /** Record this rank's step timeline (src/trace): the step logs carry its spans. */
  readonly trace?: boolean;
  /**
   * Kernel tuning as JSON over the adapter's own (src/gpu/tuning.ts parseTuning: `webddp train
   * --tuning`, WEBDDP_TUNING); absent: the adapter's tuning.
   */
  readonly tuning?: string;
  /**
   * Compare every collective's fingerprint (op, bucket, dtype, count, step) across ranks before it
   * runs and stop at the first mismatch (--debug-collectives).
   */
  readonly debugCollectives?: boolean;
  /** A failure to stage at this rank's n-th step (0-based, counted over epochs), to test failure handling. */
  readonly fault?: Fault;
  /** Resuming from a checkpoint: the optimizer steps already taken and the whole optimizer state. */
  readonly restore?: RankRestore;
}

/** The whole model's optimizer state, flat in parameter order (each rank loads its slice). */
export interface FlatOptimizerState {
  readonly step: number;
  /** torch.optim's state names (momentum_buffer, exp_avg, exp_avg_sq), each as long as the model. */
  readonly buffers: Readonly<Record<string, Float32Array>>;
}

export interface RankRestore {
  /** Optimizer steps taken before (over all epochs): the schedule's position and the fault counter. */
  readonly globalStep: number;
  /** null: a fresh optimizer (e.g. a checkpoint of a run that had not stepped). */
  readonly optimizer: FlatOptimizerState | null;
  /** fp16 or bf16: the float32 master weights (the whole model; each rank takes its slice). */
  readonly master?: Float32Array;
  /** fp16: the loss scaler and the skipped steps. */
  readonly fp16?: RankFp16State;
  /** Saved mid-epoch: the epoch's sample ledger, from which a resume on another world size deals the rest. */
  readonly ledger?: SampleLedger;
}

/** An fp16 rank's loss scaler and the steps it skipped. */
export interface RankFp16State {
  readonly scaler: ScalerState;
  readonly skippedSteps: number;
}

/** Where a rank's optimizer slice lies: [element in the flat model, element in the slice, count]. */
export type StateSegment = readonly [flat: number, local: number, count: number];

/** A rank's optimizer state for its slice (null: this rank has no optimizer, e.g. a DataParallel replica). */
export type RankOptimizerState = {
  readonly step: number;
  readonly segments: readonly StateSegment[];
  readonly buffers: Readonly<Record<string, Float32Array>>;
} | null;

/** readOptimizer's name for an fp16 rank's float32 master slice (gathered like the optimizer state). */
export const MASTER_BUFFER = 'fp32_master';

/** skip-bucket: the rank leaves out its all-reduce of gradient bucket 0 in that step (a collective desync). */
export const FAULT_KINDS = ['throw', 'exit', 'hang', 'device-lost', 'skip-bucket'] as const;
export interface Fault {
  readonly step: number;
  readonly kind: (typeof FAULT_KINDS)[number];
}

export interface RankInfo {
  readonly rank: number;
  /** How this rank's link moves gradients (shared-memory rings or MessagePort messages). */
  readonly transport: Transport;
  readonly adapter: AdapterSummary;
  readonly params: number;
  readonly memory: MemorySnapshot;
}

export interface EpochInfo {
  readonly epoch: number;
  /** Optimizer steps this epoch (micro-batches / gradient accumulation, rounded up). */
  readonly steps: number;
  /** Samples this rank sees this epoch (its DistributedSampler's len, or DP's global count on rank 0). */
  readonly samples: number;
  /** The dataset indices of this rank's shard for the epoch (DistributedSampler order). */
  readonly indices: Int32Array;
  /** Training records of the dataset (0 on a rank without data). */
  readonly datasetSize: number;
}

export interface RankStepLog {
  readonly rank: number;
  readonly epoch: number;
  readonly step: number;
  /** Mean loss of this step (this rank's local batch; DP: the global batch, on rank 0). */
  readonly loss: number;
  readonly correct: number;
  readonly samples: number;
  readonly ms: number;
  /** Milliseconds spent waiting in collectives. */
  readonly commMs: number;
  /** Bytes this rank sent this step. */
  readonly commBytes: number;
  readonly memory: MemorySnapshot;
  /** fp16 mixed precision: the loss scale used, whether the step was skipped on overflow, DeepSpeed's log lines. */
  readonly fp16?: Fp16StepInfo;
  /** Chunk transfers of this step, when recordTransfers is on. */
  readonly transfers?: readonly TransferEvent[];
  /** This rank's timeline spans finished since the last step log, when tracing. */
  readonly spans?: readonly Span[];
  /** SHA-256 of the parameters after this step, when the step was asked for it (StepOptions.checksum). */
  readonly checksum?: string;
}

/** What a step is asked for besides the step. */
export interface StepOptions {
  /**
   * The replica check of a pipelined run: the parameters after this step, copied as soon as its
   * work is submitted (before any later step's) and hashed while the next steps run.
   */
  readonly checksum?: boolean;
}

/** A few images of this rank's current batch, with their labels and the model's predictions now. */
export interface BatchSample {
  /** [n, 3, 32, 32] bytes. */
  readonly images: Uint8Array;
  readonly labels: Int32Array;
  readonly predicted: Int32Array;
}

export interface EvalResult {
  readonly lossSum: number;
  readonly correct: number;
  readonly samples: number;
}

/** What each rank's worker exposes. Every rank must be called with the same sequence. */
export interface RankApi {
  init(init: RankInit): Promise<RankInfo>;
  /**
   * Plans `epoch`; `fromStep` > 0 (resuming mid-epoch) advances the augmentation stream past the
   * batches of the steps before it, as the run that did not stop drew them.
   */
  beginEpoch(epoch: number, fromStep?: number): Promise<EpochInfo>;
  step(epoch: number, step: number, opts?: StepOptions): Promise<RankStepLog>;
  evaluate(): Promise<EvalResult>;
  /** SHA-256 of the parameters (replicas must agree). */
  checksum(): Promise<string>;
  /**
   * A traced run's end: the spans not yet sent with a step log, once every GPU span has landed
   * (the last steps' GPU spans come back after their step logs); [] without tracing.
   */
  traceTail(): Promise<Span[]>;
  readParams(): Promise<Float32Array>;
  /** This rank's optimizer state (after the steps so far); fp16: with its float32 master as buffer `fp32_master`. */
  readOptimizer(): Promise<RankOptimizerState>;
  /** fp16: this rank's loss scaler and skipped steps (null: no scaler here, or an fp32 run). */
  readFp16(): Promise<RankFp16State | null>;
  /** Up to n images of the last training batch with predictions (null when the data are not images). */
  sample(n: number): Promise<BatchSample | null>;
  memory(): Promise<MemorySnapshot>;
  /**
   * This rank's collective flight recorders (the ring's first, then DataParallel's pair links):
   * answered even after a failure, for the coordinator's report.
   */
  collectives(): Promise<RecorderState[]>;
  /** Aborts this rank's collectives (every peer's pending collective fails, naming this rank). */
  abort(reason: string): Promise<void>;
  dispose(): Promise<void>;
}
