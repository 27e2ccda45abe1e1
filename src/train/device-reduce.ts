// The all-reduce of DDP ranks that share one device (webddp train --colocate: every rank a
// worker of one thread, one GPUDevice): the gradients never leave the GPU. Each rank, once its
// backward has produced a bucket (already divided by W), calls allReduce; the k-th call of every
// rank is the same bucket. The last rank to arrive records one submit that copies every rank's
// bucket into a gathered buffer, sums it (allreduce_sum.wgsl, in rank order) and copies the sum
// back into every rank's gradients; queue order puts it after every rank's backward and before any
// rank's optimizer step. Ranks on one thread call it concurrently (async); nothing blocks.
import { storageBuffer } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import { Recorder } from '../gpu/recorder.ts';

interface Arrival {
  readonly rank: number;
  readonly grads: GPUBuffer;
  readonly offset: number;
  readonly count: number;
  readonly done: () => void;
  readonly failed: (e: Error) => void;
}

export class DeviceReduce {
  /** The k-th call of each rank, waiting for the other ranks' k-th. */
  private readonly waiting = new Map<number, Arrival[]>();
  private readonly calls: number[];
  private gpu: Gpu | null = null;
  private gathered: GPUBuffer | null = null;
  private out: GPUBuffer | null = null;
  private capacity = 0;
  /** The sum's dispatch per bucket size (buckets repeat every step). */
  private readonly ops = new Map<number, Op>();

  constructor(readonly world: number) {
    this.calls = Array.from({ length: world }, () => 0);
  }

  /** Sums `count` floats at `offset` of every rank's `grads` into each of them. */
  allReduce(gpu: Gpu, rank: number, grads: GPUBuffer, offset: number, count: number): Promise<void> {
    const k = this.calls[rank] ?? 0;
    this.calls[rank] = k + 1;
    return new Promise<void>((done, failed) => {
      const list = this.waiting.get(k) ?? [];
      list.push({ rank, grads, offset, count, done, failed });
      this.waiting.set(k, list);
      if (list.length < this.world) return;
      this.waiting.delete(k);
      this.reduce(gpu, list).then(
        () => list.forEach((a) => a.done()),
        (e: unknown) => list.forEach((a) => a.failed(e instanceof Error ? e : new Error(String(e)))),
      );
    });
  }

  private async reduce(caller: Gpu, list: readonly Arrival[]): Promise<void> {
    const [first] = list;
    if (!first) return;
    const { offset, count } = first;
    const odd = list.find((a) => a.offset !== offset || a.count !== count);
    if (odd)
      throw new Error(
        `colocated all-reduce: rank ${odd.rank} reduces ${odd.count} floats at ${odd.offset}, rank ${first.rank} ${count} at ${offset}`,
      );
    const gpu = (this.gpu ??= caller.view('colocated.reduce'));
    if (count > this.capacity) {
      if (this.gathered) gpu.memory.destroy(this.gathered);
      if (this.out) gpu.memory.destroy(this.out);
      this.gathered = storageBuffer(gpu, 'colocated.gathered', this.world * count * 4, 'communication');
      this.out = storageBuffer(gpu, 'colocated.sum', count * 4, 'communication');
      this.capacity = count;
      for (const op of this.ops.values()) op.destroy();
      this.ops.clear();
    }
    const gathered = this.gathered;
    const out = this.out;
    if (!gathered || !out) return;
    let op = this.ops.get(count);
    if (!op) {
      const k = await gpu.kernels.get('allreduce_sum');
      const wg = grid1d(count, k.overrides.WG ?? 64);
      op = makeOp(gpu, k, 'colocated.allreduce_sum', { count, world: this.world }, { gathered, out }, wg);
      this.ops.set(count, op);
    }
    const ranks = [...list].sort((a, b) => a.rank - b.rank);
    const rec = new Recorder(gpu, 'colocated.allreduce');
    ranks.forEach((a, r) => rec.copy(a.grads, offset * 4, gathered, r * count * 4, count * 4));
    rec.dispatch(op);
    for (const a of ranks) rec.copy(out, 0, a.grads, offset * 4, count * 4);
    rec.submit();
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
