// One step of DDP ranks that share one device (webddp train --colocate: every rank a worker of one
// thread, one GPUDevice), submitted once for all of them: the gradients never leave the GPU and no
// rank submits on its own. Each rank records its forward and backward (its gradients already
// divided by W) without submitting and joins the step; the last rank to join records the sum
// (every rank's gradients copied into a gathered buffer, summed by allreduce_sum.wgsl in rank
// order, the sum copied back into every rank's gradients) and then every rank's update, and
// submits it all, every rank's work in rank order, in one queue.submit. The host work of the
// step (the sum's recording, the submit) is done once, not once per rank. Ranks on one thread
// join concurrently (async); nothing blocks.
import { storageBuffer } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import { Recorder } from '../gpu/recorder.ts';

/** What a rank brings to the shared step. */
export interface RankStep {
  readonly rank: number;
  /** The rank's forward and backward, recorded and not yet submitted. */
  readonly work: Recorder;
  /** The rank's gradient arena (its first `count` floats are summed). */
  readonly grads: GPUBuffer;
  readonly count: number;
  /** Records the rank's update (optimizer, zeroed gradients) into a new recording, after the sum. */
  readonly update: () => Recorder;
}

interface Arrival extends RankStep {
  readonly done: () => void;
  readonly failed: (e: Error) => void;
}

export class DeviceReduce {
  /** The k-th step of each rank, waiting for the other ranks' k-th. */
  private readonly waiting = new Map<number, Arrival[]>();
  private readonly calls: number[];
  private gpu: Gpu | null = null;
  private gathered: GPUBuffer | null = null;
  private out: GPUBuffer | null = null;
  private capacity = 0;
  /** The sum's dispatch per gradient count. */
  private readonly ops = new Map<number, Op>();

  constructor(readonly world: number) {
    this.calls = Array.from({ length: world }, () => 0);
  }

  /**
   * Joins this rank's step: settles once every rank's work, the sum and every rank's update are
   * submitted (the rank's stats may then be read back).
   */
  step(gpu: Gpu, s: RankStep): Promise<void> {
    const k = this.calls[s.rank] ?? 0;
    this.calls[s.rank] = k + 1;
    return new Promise<void>((done, failed) => {
      const list = this.waiting.get(k) ?? [];
      list.push({ ...s, done, failed });
      this.waiting.set(k, list);
      if (list.length < this.world) return;
      this.waiting.delete(k);
      this.submit(gpu, list).then(
        () => list.forEach((a) => a.done()),
        (e: unknown) => list.forEach((a) => a.failed(e instanceof Error ? e : new Error(String(e)))),
      );
    });
  }

  private async submit(caller: Gpu, list: readonly Arrival[]): Promise<void> {
    const ranks = [...list].sort((a, b) => a.rank - b.rank);
    const [first] = ranks;
    if (!first) return;
    const { count } = first;
    const odd = ranks.find((a) => a.count !== count);
    if (odd)
      throw new Error(`colocated all-reduce: rank ${odd.rank} sums ${odd.count} floats, rank ${first.rank} ${count}`);
    const gpu = (this.gpu ??= caller.view('colocated.reduce'));
    const op = await this.sumOp(gpu, count);
    const sum = new Recorder(gpu, 'colocated.allreduce');
    const { gathered, out } = op;
    ranks.forEach((a, r) => sum.copy(a.grads, 0, gathered, r * count * 4, count * 4));
    sum.dispatch(op.op);
    for (const a of ranks) sum.copy(out, 0, a.grads, 0, count * 4);
    submitInOrder(gpu.device.queue, [...ranks.map((a) => a.work), sum, ...ranks.map((a) => a.update())]);
  }

  /** The summing dispatch for `count` floats and its buffers (grown when a step sums more). */
  private async sumOp(gpu: Gpu, count: number): Promise<{ op: Op; gathered: GPUBuffer; out: GPUBuffer }> {
    if (count > this.capacity) {
      if (this.gathered) gpu.memory.destroy(this.gathered);
      if (this.out) gpu.memory.destroy(this.out);
      this.gathered = storageBuffer(gpu, 'colocated.gathered', this.world * count * 4, 'communication');
      this.out = storageBuffer(gpu, 'colocated.sum', count * 4, 'communication');
      this.capacity = count;
      for (const op of this.ops.values()) op.destroy();
      this.ops.clear();
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
    return { op, gathered, out };
  }

  /** Frees the reducer's buffers (its device view; the device stays). */
  destroy(): void {
    for (const op of this.ops.values()) op.destroy();
    this.gpu?.destroy();
    for (const list of this.waiting.values())
      for (const a of list) a.failed(new Error('the colocated ranks were disposed during an all-reduce'));
    this.waiting.clear();
  }
}

/**
 * Submits the recordings in order in one queue.submit. A recording that submits as it records (a
 * traced run's, timed layer by layer) is submitted on its own, after everything before it.
 */
function submitInOrder(queue: GPUQueue, recs: readonly Recorder[]): void {
  const pending: GPUCommandBuffer[] = [];
  const flush = () => {
    if (pending.length > 0) queue.submit(pending.splice(0));
  };
  for (const rec of recs) {
    if (rec.submitsItself) {
      flush();
      rec.submit();
    } else pending.push(rec.finish());
  }
  flush();
}
