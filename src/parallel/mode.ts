// A parallel mode (torch.nn.parallel's DataParallel and DistributedDataParallel, DeepSpeed's ZeRO
// stages) as one object: what the trainer on each rank needs, how an epoch is planned, which ranks
// read data and evaluate, and how a step runs (the runner, loaded lazily so that the coordinator's
// thread never loads GPU code). src/parallel/index.ts holds one entry per Mode.
import type { DeviceReduce } from '../train/device-reduce.ts';
import type { RankBatch } from '../train/rank-batch.ts';
import type { LossScaler } from '../optim/loss-scaler.ts';
import type { TrainConfig } from '../config.ts';
import type { ConfigIssue } from '../config.ts';
import type { ProcessGroup } from '../comm/process-group.ts';
import type { EpochPlan, MicroBatch } from '../data/plan.ts';
import type { BatchSource } from '../data/source.ts';
import type { ModelSpec } from '../nn/spec.ts';
import type { Optimizer, OptimizerConfig } from '../optim/optimizer.ts';
import type { StepResult, Trainer, TrainerOptions } from '../train/trainer.ts';
import type { Batch } from '../data/batch.ts';
import type { Tracer } from '../trace/tracer.ts';
import type { Fp16StepInfo } from './fp16.ts';

export type { EpochPlan, MicroBatch } from '../data/plan.ts';

/** A run's arithmetic: float32, or mixed precision with fp16 or bf16 parameters and gradients. */
export type Precision = 'fp32' | 'fp16' | 'bf16';
/** Where a run's ranks live: a device each, or one device they share. */
export type Placement = 'own-devices' | 'shared-device';
/** DeepSpeed's zero_optimization.stage (0: DDP). */
export type ZeroStage = 0 | 1 | 2 | 3;

/** The precision a configuration trains in. */
export function precisionOf(c: Pick<TrainConfig, 'fp16' | 'bf16'>): Precision {
  return c.fp16 ? 'fp16' : c.bf16 ? 'bf16' : 'fp32';
}

export interface ParallelMode {
  /**
   * 'ring': every rank trains on its own shard and talks to its ring neighbours (DDP, ZeRO);
   * 'star': device 0 drives replicas over a pair of links each (DataParallel).
   */
  readonly topology: 'ring' | 'star';
  /** Which state each rank holds only 1/W of (ZeRO's partitions); the rest is replicated. */
  readonly partitioned: { readonly optimizer: boolean; readonly gradients: boolean; readonly parameters: boolean };
  /** BalancedDataParallel's gpu0_bsz applies. */
  readonly usesGpu0Bsz: boolean;
  /** DDP's bucket_cap_mb applies (gradients all-reduced in buckets). */
  readonly usesBucketCap: boolean;
  /**
   * DeepSpeed's zero_optimization.stage this mode is (DDP 0, ZeRO-1/2/3), which also picks its
   * per-rank model-state formula (zero/memory-model.ts); null: not a ring of data-parallel ranks
   * (DataParallel's star), which neither DeepSpeed nor the formulas describe.
   */
  readonly zeroStage: ZeroStage | null;
  /** Its name in PyTorch or DeepSpeed, for messages ('DistributedDataParallel', 'ZeRO-2', ...). */
  readonly title: string;
  /**
   * Why a torchrun project (webddp export-torchrun: one process per rank, each with its own
   * DistributedSampler shard) cannot continue this mode's runs; null: it can.
   */
  readonly torchrunRefusal: string | null;
  /** The precisions it trains in: fp32; fp16 (DeepSpeed's fp16, loss-scaled); bf16 (no loss scale). */
  readonly precisions: readonly Precision[];
  /**
   * Where its ranks may run, each with the precisions it runs there: every rank on a device of its
   * own (a worker each), or ranks sharing one device (--colocate: one worker, one GPUDevice).
   */
  readonly placements: { readonly [P in Placement]?: readonly Precision[] };
  /** Problems of this mode with an otherwise valid configuration. */
  validate(c: TrainConfig): ConfigIssue[];
  /** The trainer (optimizer, shard, batch capacity) rank `rank` needs. */
  trainerOptions(spec: ModelSpec, c: TrainConfig, rank: number, world: number): TrainerOptions;
  /** Whether rank `rank` reads training data itself (DataParallel's replicas get it from device 0). */
  loadsData(rank: number): boolean;
  /** Loads this rank's records for `epoch` into `source` and plans its steps. */
  planEpoch(p: PlanRequest): Promise<EpochPlan>;
  /** The test positions rank `rank` evaluates (together, every test record once). */
  evalIndices(rank: number, world: number, testSize: number): Int32Array;
  /**
   * Whether the coordinator may ask every rank for step k+1 before step k has returned (its batch
   * gathered and uploaded, its work queued behind step k's on the GPU, or, where a step runs
   * collectives on the host, the request waiting on the rank until step k's have ended): only
   * where nothing step k+1 is given depends on how step k came out. Absent: never. `colocated`:
   * the ranks share one device (--colocate), so DDP's all-reduce is GPU work queued like the rest.
   */
  pipelines?(c: TrainConfig, colocated: boolean): boolean;
  /** Samples one step trained, from every rank's own count. */
  stepSamples(perRank: readonly number[]): number;
  createRunner(ctx: ModeContext): Promise<ModeRunner>;
}

export interface PlanRequest {
  readonly config: TrainConfig;
  readonly rank: number;
  readonly world: number;
  readonly epoch: number;
  readonly source: BatchSource;
  /** A resumed epoch's shard of each rank (runtime/epoch-ledger.ts), instead of DistributedSampler's. */
  readonly shardOf?: (rank: number) => Int32Array;
}

export interface StepStats {
  /** Mean loss over the step's samples. */
  readonly loss: number;
  readonly correct: number;
  readonly samples: number;
  /** fp16 mixed precision: the loss scale used, whether the step was skipped, DeepSpeed's log lines. */
  readonly fp16?: Fp16StepInfo;
}

export interface ModeContext {
  readonly rank: number;
  readonly world: number;
  readonly config: TrainConfig;
  /** This rank's device, through the trainer: the only way a mode reaches it. */
  readonly trainer: Trainer;
  /** The ring (all ranks). */
  readonly pg: ProcessGroup;
  /** DataParallel's 2-rank groups with each peer (rank 0: every replica; a replica: rank 0). */
  readonly pairs: ReadonlyMap<number, ProcessGroup>;
  readonly source: BatchSource | null;
  /** The parameters every rank starts from (a mode that partitions them keeps its own copy; others are already set). */
  readonly initialParams: Float32Array;
  /** Runs a collective, counting the time spent waiting in it (a comm-lane span `name` when tracing). */
  comm<T>(op: () => Promise<T>, name?: string): Promise<T>;
  /** This rank's step timeline (off unless the run traces). */
  readonly tracer: Tracer;
  /**
   * Ranks sharing this rank's device (webddp train --colocate): float32 DDP's step of them all,
   * batched (batch), or each rank's own work with the sum on the device (reduce).
   */
  readonly colocated?: { readonly reduce: DeviceReduce; readonly batch: RankBatch };
}

/** An optimizer and where its slice lies in the flat model: [flat element, slice element, count]. */
export interface OptimizerView {
  readonly optimizer: Optimizer | null;
  readonly segments: readonly (readonly [number, number, number])[];
  /** fp16: the float32 master weights the optimizer steps, laid out as its state (same segments). */
  readonly master?: GPUBuffer | null;
}

/** What a pipelined step tells the rank, in order (ModeRunner.onNextStep). */
export interface StepHooks {
  /** The step's turn: the previous step's work is submitted and this step's is about to be recorded. */
  started(): void;
  /** The step's work is submitted, before any later step's (the replica check copies the parameters there). */
  submitted?(): void;
}

export interface ModeRunner {
  /** Where the optimizer is the runner's own rather than the trainer's (ZeRO-3). */
  readonly optimizer?: Optimizer;
  /** Makes every replica start from rank 0's parameters (PyTorch DDP broadcasts in its constructor). */
  syncInitial(): Promise<void>;
  step(micro: readonly MicroBatch[], lr: number): Promise<StepStats>;
  /**
   * Pipelined runners (ParallelMode.pipelines), whose next step may be asked for before this one's
   * work is recorded: the next step() calls these hooks at its own points in time.
   */
  onNextStep?(hooks: StepHooks): void;
  /** Gives every rank the current parameters (DataParallel's replicas only get them at the next forward). */
  syncParams(): Promise<void>;
  /**
   * Where the trainer's arena does not hold the parameters (ZeRO-3): forward-only evaluation of a
   * batch and the full parameters (after syncParams, with the current values; every rank calls it).
   */
  evaluate?(b: Batch): Promise<StepResult>;
  readParams?(): Promise<Float32Array<ArrayBuffer>>;
  /** Where the runner keeps its own optimizer (ZeRO-3): it and its slice's segments. Absent: the trainer's. */
  /** fp16: this rank's loss scaler (every rank that has one takes the same decisions). */
  lossScaler?(): LossScaler | null;
  optimizerView?(): OptimizerView;
  dispose(): void;
}

/** Accumulates per-micro-batch results into a step's StepStats. */
export class StatsSum {
  private lossSum = 0;
  private correct = 0;
  private samples = 0;

  add(loss: number, correct: number, samples: number): void {
    this.lossSum += loss * samples;
    this.correct += correct;
    this.samples += samples;
  }

  get value(): StepStats {
    return { loss: this.samples > 0 ? this.lossSum / this.samples : NaN, correct: this.correct, samples: this.samples };
  }
}

/**
 * The optimizer a configuration asks for (momentum only for SGD). OneCycleLR with cycle_momentum
 * starts SGD's momentum or Adam's beta1 at max_momentum, as PyTorch's constructor sets them (and
 * the rank sets the schedule's value before every step).
 */
export function optimizerOf(c: TrainConfig): OptimizerConfig {
  const s = c.schedule;
  const cycled = s !== 'none' && s.type === 'OneCycleLR' && s.params.cycle_momentum ? s.params.max_momentum : null;
  return {
    name: c.optimizer,
    lr: c.lr,
    momentum: c.optimizer === 'sgd' ? (cycled ?? c.momentum) : 0,
    weightDecay: c.weightDecay,
    betas: cycled === null ? c.adamBetas : [cycled, c.adamBetas[1]],
    eps: c.adamEps,
  };
}
