// What every parallel mode (DDP, DataParallel, ZeRO) gets from its rank, and what it provides:
// the initial parameter sync, one optimizer step over a few micro-batches, and the sync that
// gives every rank the current parameters before evaluation or a checksum.
import type { TrainConfig } from '../config.ts';
import type { Gpu } from '../gpu/device.ts';
import type { Trainer } from '../train/trainer.ts';
import type { ProcessGroup } from '../comm/process-group.ts';
import type { BatchSource } from '../data/source.ts';

/** Positions [start, start + count) of this rank's loaded shard (DP: of rank 0's global index list). */
export interface MicroBatch {
  readonly start: number;
  readonly count: number;
}

export interface StepStats {
  /** Mean loss over the step's samples. */
  readonly loss: number;
  readonly correct: number;
  readonly samples: number;
}

export interface ModeContext {
  readonly rank: number;
  readonly world: number;
  readonly config: TrainConfig;
  readonly gpu: Gpu;
  readonly trainer: Trainer;
  /** The ring (all ranks). */
  readonly pg: ProcessGroup;
  /** DataParallel's 2-rank groups with each peer (rank 0: every replica; a replica: rank 0). */
  readonly pairs: ReadonlyMap<number, ProcessGroup>;
  readonly source: BatchSource | null;
  /** Runs a collective, counting the time spent waiting in it. */
  comm<T>(op: () => Promise<T>): Promise<T>;
}

export interface ModeRunner {
  /** Makes every replica start from rank 0's parameters (PyTorch DDP broadcasts in its constructor). */
  syncInitial(): Promise<void>;
  step(micro: readonly MicroBatch[], lr: number): Promise<StepStats>;
  /** Gives every rank the current parameters (DataParallel's replicas only get them at the next forward). */
  syncParams(): Promise<void>;
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

/** Reads `count` floats of a MAP_READ staging buffer whose copy was already submitted. */
export async function readStaging(buffer: GPUBuffer, count: number): Promise<Float32Array> {
  await buffer.mapAsync(GPUMapMode.READ, 0, count * 4);
  const out = new Float32Array(buffer.getMappedRange(0, count * 4).slice(0));
  buffer.unmap();
  return out;
}
