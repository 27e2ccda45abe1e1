// The gradient sum of DDP ranks that share one device (webddp train --colocate: every rank a worker
// of one thread, one GPUDevice), and the step that uses it where the ranks' step cannot be batched
// (rank-batch.ts: a rank's rows that cannot be bound on their own, gradient accumulation): each rank
// records its forward and backward (its gradients already divided by W) without submitting and
// joins the step; the last rank to join records the sum (every rank's gradients copied into a
// gathered buffer, summed by allreduce_sum.wgsl in rank order, the sum copied back into every
// rank's gradients) and then every rank's update, and submits it all, every rank's work in rank
// order, in one queue.submit. The gradients never leave the GPU; the host work of the step (the
// sum's recording, the submit) is done once, not once per rank.
import { bufferFrom, storageBuffer } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import { Recorder } from '../gpu/recorder.ts';
import { RankJoin } from './rank-join.ts';

/** What a rank brings to the shared step. */
export interface RankStep {
  readonly rank: number;
  /** The rank's Gpu view (the step is recorded on the last rank's). */
  readonly gpu: Gpu;
  /** The rank's forward and backward, recorded and not yet submitted. */
  readonly work: Recorder;
  /** The rank's gradient arena (its first `count` floats are summed). */
  readonly grads: GPUBuffer;
  readonly count: number;
  /** Records the rank's update (optimizer, zeroed gradients) into a new recording, after the sum. */
  readonly update: () => Recorder;
}

/** The sum's dispatch and buffers for one gradient count (DeviceReduce.prepareSum). */
export interface SumOp {
  readonly op: Op;
  /**
   * Where the ranks' gradients come undivided (the batched step, rank-batch.ts): every rank's
   * gathered gradients times 1/W in one dispatch (scale.wgsl, the product each rank's bucket
   * pre-division makes: the same bits), before the sum; else null.
   */
  readonly prescale: Op | null;
  readonly gathered: GPUBuffer;
  readonly out: GPUBuffer;
  readonly count: number;
}

export class DeviceReduce {
  private readonly steps: RankJoin<RankStep>;
  private gpu: Gpu | null = null;
  private gathered: GPUBuffer | null = null;
  private out: GPUBuffer | null = null;
  private capacity = 0;
  /** The sum's dispatch per gradient count. */
  private readonly ops = new Map<number, Op>();
  /** The gathered gradients' division by W per gradient count (SumOp.prescale). */
  private readonly prescales = new Map<number, Op>();
  private factor: GPUBuffer | null = null;

  constructor(readonly world: number) {
    this.steps = new RankJoin(world, (ranks) => this.submit(ranks));
  }

  /**
   * Joins this rank's step: settles once every rank's work, the sum and every rank's update are
   * submitted (the rank's stats may then be read back).
   */
  step(s: RankStep): Promise<void> {
    return this.steps.join(s.rank, s);
  }

  private async submit(ranks: readonly RankStep[]): Promise<void> {
    const last = ranks[ranks.length - 1];
    if (!last) return;
    const sum = await this.prepareSum(
      last.gpu,
      ranks.map((a) => a.count),
      ranks.map((a) => a.rank),
    );
    const rec = new Recorder(this.gpu ?? last.gpu, 'colocated.allreduce');
    this.recordSum(
      rec,
      sum,
      ranks.map((a) => a.grads),
    );
    submitInOrder(last.gpu.device.queue, [...ranks.map((a) => a.work), rec, ...ranks.map((a) => a.update())]);
  }

  /**
   * The sum of every rank's first `counts[r]` gradients (all equal, else an error naming `ranks`),
   * prepared on `caller`'s device (buffers grown when a step sums more); with `divide`, the
   * gradients come undivided and the sum divides them by W first (SumOp.prescale).
   */
  async prepareSum(caller: Gpu, counts: readonly number[], ranks: readonly number[], divide = false): Promise<SumOp> {
    const count = counts[0] ?? 0;
    const odd = counts.findIndex((c) => c !== count);
    if (odd >= 0)
      throw new Error(`colocated all-reduce: rank ${ranks[odd]} sums ${counts[odd]} floats, rank ${ranks[0]} ${count}`);
    const gpu = (this.gpu ??= caller.view('colocated.reduce'));
    if (count > this.capacity) {
      if (this.gathered) gpu.memory.destroy(this.gathered);
      if (this.out) gpu.memory.destroy(this.out);
      this.gathered = storageBuffer(gpu, 'colocated.gathered', this.world * count * 4, 'communication');
      this.out = storageBuffer(gpu, 'colocated.sum', count * 4, 'communication');
      this.capacity = count;
      for (const op of [...this.ops.values(), ...this.prescales.values()]) op.destroy();
      this.ops.clear();
      this.prescales.clear();
    }
    const { gathered, out } = this;
    if (!gathered || !out) throw new Error('colocated all-reduce: no gathered buffer');
    let op = this.ops.get(count);
    if (!op) {
      const k = await gpu.kernels.get('allreduce_sum');
      const wg = grid1d(count, k.overrides.WG ?? 64);
      op = makeOp(gpu, k, 'colocated.allreduce_sum', { count, world: this.world }, { gathered, out }, wg);
      this.ops.set(count, op);
    }
    return { op, prescale: divide ? await this.prescaleOp(gpu, gathered, count) : null, gathered, out, count };
  }

  /** Every rank's `count` gathered gradients times 1/W (DDP's pre-division, as bucketed.ts makes it). */
  private async prescaleOp(gpu: Gpu, gathered: GPUBuffer, count: number): Promise<Op> {
    const cached = this.prescales.get(count);
    if (cached) return cached;
    const factor = (this.factor ??= bufferFrom(gpu, 'colocated.inv_world', Float32Array.of(1 / this.world), 'other'));
    const k = await gpu.kernels.get('scale');
    const all = this.world * count;
    const op = makeOp(
      gpu,
      k,
      'colocated.prescale',
      { count: all, offset: 0, factor_index: 0 },
      { factor, data: gathered },
      grid1d(all, k.overrides.WG ?? 64),
    );
    this.prescales.set(count, op);
    return op;
  }

  /**
   * Records the sum: every rank's gradients (`grads`, in rank order) copied into the gathered
   * buffer (unless `gathered`: they are already there), divided by W where the sum was prepared
   * to, summed by allreduce_sum.wgsl in rank order, the sum copied back into every rank's.
   */
  recordSum(rec: Recorder, sum: SumOp, grads: readonly GPUBuffer[], gathered = false): void {
    const bytes = sum.count * 4;
    if (!gathered) grads.forEach((g, r) => rec.copy(g, 0, sum.gathered, r * bytes, bytes));
    if (sum.prescale) rec.dispatch(sum.prescale);
    rec.dispatch(sum.op);
    for (const g of grads) rec.copy(sum.out, 0, g, 0, bytes);
  }

  /** Frees the reducer's buffers (its device view; the device stays). */
  destroy(): void {
    for (const op of [...this.ops.values(), ...this.prescales.values()]) op.destroy();
    if (this.factor) this.gpu?.memory.destroy(this.factor);
    this.gpu?.destroy();
    this.steps.abort('the colocated ranks were disposed during an all-reduce');
  }
}

/**
 * Submits the recordings in order in one queue.submit. A recording that submits as it records (a
 * traced run's, timed layer by layer) is submitted on its own, after everything before it.
 */
export function submitInOrder(queue: GPUQueue, recs: readonly Recorder[]): void {
  const pending: GPUCommandBuffer[] = [];
  const finished: Recorder[] = [];
  const flush = () => {
    if (pending.length > 0) queue.submit(pending.splice(0));
    for (const rec of finished.splice(0)) rec.submitted();
  };
  for (const rec of recs) {
    if (rec.submitsItself) {
      flush();
      rec.submit();
    } else {
      pending.push(rec.finish());
      finished.push(rec);
    }
  }
  flush();
}
