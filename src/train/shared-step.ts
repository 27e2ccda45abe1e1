// The step of a DDP rank whose device other ranks share (--colocate): nothing is read back. Either
// every rank's step is one batched dispatch per layer over all their samples (rank-batch.ts), or
// this rank records its backward with every bucket pre-divided by W and joins the other ranks'
// (device-reduce.ts), which sums the gradients on the device and records every rank's update,
// all submitted at once.
import type { Batch } from '../data/batch.ts';
import type { Op } from '../gpu/op.ts';
import { Recorder } from '../gpu/recorder.ts';
import type { DeviceReduce } from './device-reduce.ts';
import type { Pass } from './pass.ts';
import type { RankBatch } from './rank-batch.ts';
import type { StepResult, Trainer } from './trainer.ts';

/** The ranks sharing this rank's device and its place among them. */
export interface SharedPlace {
  readonly reduce: DeviceReduce;
  readonly batch: RankBatch;
  readonly rank: number;
}

export class SharedDeviceStep {
  constructor(
    private readonly trainer: Trainer,
    private readonly place: SharedPlace,
    private readonly buckets: {
      /** Each bucket's division by W, in bucket order. */
      readonly prescales: readonly Op[];
      /** How many gradients the buckets hold (from the arena's start). */
      readonly count: number;
      /** Whether the gradients travel as 16-bit pairs (not batched). */
      readonly halves: boolean;
    },
  ) {}

  /** Whether the ranks' step with `rows` samples a rank runs batched (rank-batch.ts). */
  batches(rows: number): boolean {
    return !this.buckets.halves && this.place.batch.fits(this.trainer, rows);
  }

  /**
   * Batched (rank-batch.ts): joins the step of every rank with `batch`, in which this rank's
   * gradients are divided by W, summed over the ranks and its update recorded at `lr`. Settles
   * once the step is submitted, with the promise of this rank's loss.
   */
  batchedStep(batch: Batch, lossScale: number, lr: number): Promise<{ readonly result: Promise<StepResult> }> {
    const { trainer, place } = this;
    return place.batch.step({
      rank: place.rank,
      trainer,
      batch,
      lossScale,
      count: this.buckets.count,
      update: (rec) => trainer.recordUpdate(rec, lr),
    });
  }

  /**
   * Records `pass`'s backward with every bucket divided by W, and joins the step of every rank
   * (device-reduce.ts), which sums the gradients on the device and records this rank's update at
   * `lr`. Settles once every rank's step is submitted.
   */
  sharedStep(pass: Pass, lr: number): Promise<void> {
    const { trainer, place } = this;
    const { gpu } = trainer;
    const rec = pass.rec;
    trainer.recordBackward(rec, pass.plan);
    rec.phase('bucket copy');
    for (const op of this.buckets.prescales) rec.dispatch(op);
    return place.reduce.step({
      rank: place.rank,
      gpu,
      work: rec,
      grads: trainer.grads,
      count: this.buckets.count,
      update: () => {
        const u = new Recorder(gpu, 'ddp.update');
        trainer.recordUpdate(u, lr);
        return u;
      },
    });
  }
}
