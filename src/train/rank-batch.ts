// One float32 DDP step of the ranks that share one device (webddp train --colocate, "workers share
// one device"), batched: every rank uploads its batch into its rows of one set of buffers, and once
// all W have joined, the last records the step of all of them and submits it once:
//   1. each layer's forward, over every rank's rows at once (split-K chosen for one rank's batch,
//      so each sample's sums are the ones a rank alone computes);
//   2. each rank's loss over its rows (its own loss and accuracy), the loss gradient over all rows;
//   3. each layer's input gradient over all rows, then each rank's parameter gradients from its
//      own rows into its slice of the gathered buffer the ranks' sum reads (summed over its
//      samples alone: the bits a device of its own gives);
//   4. every rank's gathered gradients divided by W in one dispatch (DDP's pre-division, the same
//      product each rank's buckets make), the sum over the ranks on the device (device-reduce.ts),
//      copied into every rank's gradient arena, then every rank's update.
// A layer is thus one dispatch for all ranks, not W: the fixed cost of a step's ~23 dependent
// dispatches is paid once (docs/placements.md). The ranks' batches go up in one staging buffer,
// copied in the step's own submit. The forward and the input gradients read rank 0's
// parameters: DDP keeps every replica's bits equal (rank 0's broadcast at the start, then the same
// averaged gradients and the same update on every rank), and each rank still keeps and updates its
// own parameters, gradients and optimizer state. The shared rows are the group's buffers, counted
// once on the device, beside each rank's own (which its evaluation uses).
// Each rank's rows must start where a binding may (minStorageBufferOffsetAlignment): fits() says
// whether a batch size does; where it does not, the ranks take device-reduce.ts's step.
import type { Batch } from '../data/batch.ts';
import { Recorder } from '../gpu/recorder.ts';
import { numel } from '../nn/layer.ts';
import { recordRows } from './batch-upload.ts';
import type { DeviceReduce, SumOp } from './device-reduce.ts';
import { allocateRows, buildPlan, destroyPlan, type BatchedPlan, type Rows } from './rank-batch-plan.ts';
import { RankJoin } from './rank-join.ts';
import { StagingPool } from '../gpu/staging.ts';
import type { StepResult } from './trainer-options.ts';
import type { Trainer } from './trainer.ts';

/** What a rank brings to the batched step. */
export interface BatchedRank {
  readonly rank: number;
  readonly trainer: Trainer;
  readonly batch: Batch;
  /** The loss gradient's factor (the loss scale over the rank's batch: 1/b). */
  readonly lossScale: number;
  /** How many of the rank's gradients are summed (the arena's). */
  readonly count: number;
  /** Records the rank's update (clip, optimizer, zeroed gradients) after the sum. */
  readonly update: (rec: Recorder) => void;
}

interface Arrival extends BatchedRank {
  /** Receives the rank's loss stats, read back once the step is submitted. */
  readonly result: (r: Promise<StepResult>) => void;
}

/** Bytes of one rank's stats in the step's readback: mean loss, correct, loss sum, padding. */
const STATS_BYTES = 16;

export class RankBatch {
  private readonly steps: RankJoin<Arrival>;
  private rowsBuf: Rows | null = null;
  private readonly plans = new Map<number, Promise<BatchedPlan>>();
  /** Every rank's loss stats of a step, read back at once. */
  private stats: StagingPool | null = null;

  constructor(
    readonly world: number,
    private readonly reduce: DeviceReduce,
  ) {
    this.steps = new RankJoin(world, (ranks) => this.submit(ranks));
  }

  /**
   * Whether ranks of this model (float32 parameters and activations) with `rows` samples each can
   * run batched: every rank's rows of every buffer start where a binding may.
   */
  fits(trainer: Trainer, rows: number): boolean {
    const { model, halfFormat } = trainer;
    if (halfFormat || model.halfActivations || rows > model.maxBatch) return false;
    const align = trainer.gpu.device.limits.minStorageBufferOffsetAlignment;
    const perSample = [numel(model.spec.input), ...model.layers.map((l) => numel(l.outShape))];
    return perSample.every((n) => (rows * n * 4) % align === 0);
  }

  /**
   * Joins the step with this rank's batch: settles once every rank's work is submitted, with the
   * promise of this rank's loss and correct count.
   */
  step(s: BatchedRank): Promise<{ readonly result: Promise<StepResult> }> {
    let result: Promise<StepResult> | null = null;
    const keep = (r: Promise<StepResult>): void => {
      result = r;
    };
    return this.steps.join(s.rank, { ...s, result: keep }).then(() => {
      if (!result) throw new Error(`rank ${s.rank}: the batched step read back no loss`);
      return { result };
    });
  }

  private async submit(ranks: readonly Arrival[]): Promise<void> {
    const last = ranks[ranks.length - 1];
    if (!last) return;
    const rows = last.batch.labels.length;
    const odd = ranks.find((a) => a.batch.labels.length !== rows || a.lossScale !== last.lossScale);
    if (odd)
      throw new Error(
        `colocated step: rank ${odd.rank} has ${odd.batch.labels.length} samples (loss scale ${odd.lossScale}), rank ${last.rank} ${rows} (${last.lossScale})`,
      );
    const trainers = ranks.map((a) => a.trainer);
    const buffers = (this.rowsBuf ??= allocateRows(last.trainer, this.world));
    if (rows > buffers.maxRows) throw new Error(`colocated step: a batch of ${rows} is over ${buffers.maxRows}`);
    const sum = await this.reduce.prepareSum(
      last.trainer.gpu,
      ranks.map((a) => a.count),
      ranks.map((a) => a.rank),
      true,
    );
    const plan = await this.plan(rows, trainers, sum);
    if (plan.scale !== last.lossScale) {
      plan.lossBackward.setParams({ scale: last.lossScale });
      plan.scale = last.lossScale;
    }
    const rec = new Recorder(last.trainer.gpu, 'colocated.step');
    // every rank's batch in one staging buffer, copied in this submit
    const uploaded = recordRows(
      last.trainer.gpu,
      buffers,
      ranks.map((a) => a.batch),
      rows,
      rec,
    );
    const bytes = 'images' in last.batch;
    rec.phase('forward');
    if (bytes) rec.dispatch(plan.normalize);
    rec.layer('normalize');
    for (const l of plan.forward) {
      for (const op of l.ops) rec.dispatch(op);
      rec.layer(`${l.layer}.forward`);
    }
    for (const op of plan.lossForward) rec.dispatch(op);
    rec.layer('loss');
    const pool = (this.stats ??= new StagingPool(buffers.gpu, 'colocated.stats', this.world * STATS_BYTES));
    const statsBuf = pool.take();
    ranks.forEach((a, r) => rec.copy(a.trainer.model.stats, 0, statsBuf, r * STATS_BYTES, STATS_BYTES));
    // the ranks' parameter gradients accumulate into their slices of the gathered buffer
    rec.clear(sum.gathered, 0, this.world * sum.count * 4);
    rec.phase('backward');
    rec.dispatch(plan.lossBackward);
    rec.layer('loss.backward');
    for (const s of plan.backward) {
      for (const op of s.input) rec.dispatch(op);
      for (const op of s.weight) rec.dispatch(op);
      rec.layer(`${s.layer}.backward`);
    }
    rec.phase('all-reduce');
    this.reduce.recordSum(
      rec,
      sum,
      trainers.map((t) => t.grads),
      true,
    );
    for (const a of ranks) a.update(rec);
    rec.submit();
    uploaded();
    const read = last.trainer.gpu.tracer.span('readback stats', 'step', () => pool.read(statsBuf));
    ranks.forEach((a, r) =>
      a.result(
        read.then((bytes) => {
          const f = new Float32Array(bytes, r * STATS_BYTES, 2);
          return { batch: rows, loss: f[0] ?? NaN, correct: f[1] ?? 0 };
        }),
      ),
    );
  }

  /**
   * The plan for `rows` rows per rank, rebuilt when the ranks' trainers are others (a new run) or
   * the sum's gathered buffer is another (grown).
   */
  private async plan(rows: number, trainers: readonly Trainer[], sum: SumOp): Promise<BatchedPlan> {
    const cached = this.plans.get(rows);
    if (cached) {
      const p = await cached;
      if (p.gathered === sum.gathered && p.trainers.every((t, r) => t === trainers[r])) return p;
      this.plans.delete(rows);
      destroyPlan(p);
    }
    const rowsBuf = this.rowsBuf;
    if (!rowsBuf) throw new Error('colocated step: no rows were allocated');
    const p = buildPlan(rowsBuf, rows, trainers, sum);
    this.plans.set(rows, p);
    return p;
  }

  destroy(): void {
    this.steps.abort('the colocated ranks were disposed during a step');
    for (const p of this.plans.values()) void p.then(destroyPlan, () => undefined);
    this.plans.clear();
    const b = this.rowsBuf;
    if (b) {
      for (const buf of [b.bytes, b.x, b.labels, ...b.acts, b.dlogits, ...b.grad]) b.gpu.memory.destroy(buf);
      b.gpu.destroy();
    }
    this.rowsBuf = null;
    this.stats?.destroy();
    this.stats = null;
  }
}
