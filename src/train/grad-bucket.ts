// ZeRO stage 2 and 3's gradient path on one rank: backward writes a layer's gradients (or one row
// piece of a large Linear layer's) into one bounded bucket buffer (the trainer's gradient arena,
// laid out by bucketLayout); each bucket is pre-divided by W, read back, added into the host
// accumulator at its arena offsets and cleared. Only this bucket and the rank's reduced partition
// are gradient memory on the device (DeepSpeed's reduce_bucket_size and its partitioned grads).
// The host accumulator sums the micro-batches of an accumulation step in the order DDP's GPU arena
// sums them (g1 + g2, then x 1/W, exact for power-of-two W), so the result stays bit-identical.
import { bufferFrom } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import { Readback } from '../gpu/readback.ts';
import { Recorder } from '../gpu/recorder.ts';
import type { Trainer } from './trainer.ts';

/** [arena offset, bucket offset, count] */
export type Target = readonly [number, number, number];

export class GradientBucket {
  private readonly scales = new Map<number, Op>();
  private readonly readback: Readback;
  private readonly factor: GPUBuffer;
  /** The step's accumulated, pre-divided gradients by arena offset (host memory, filled bucket by bucket). */
  readonly host: Float32Array;

  constructor(
    private readonly gpu: Gpu,
    private readonly trainer: Trainer,
    world: number,
  ) {
    this.readback = new Readback(gpu, 'zero.grads.bucket_readback', trainer.grads.size / 4);
    this.factor = bufferFrom(gpu, 'zero.inv_world', Float32Array.of(1 / world), 'other');
    this.host = new Float32Array(trainer.spec.total);
  }

  private async scale(count: number): Promise<Op> {
    let op = this.scales.get(count);
    if (!op) {
      const k = await this.gpu.kernels.get('scale');
      op = makeOp(
        this.gpu,
        k,
        `zero.bucket.prescale[${count}]`,
        { count, offset: 0, factor_index: 0 },
        { factor: this.factor, data: this.trainer.grads },
        grid1d(count, k.overrides.WG ?? 64),
      );
      this.scales.set(count, op);
    }
    return op;
  }

  /**
   * After `rec` has recorded backward work that filled the bucket's first `count` elements:
   * pre-divides them, reads them back, adds them into `host` at `targets`, clears the bucket.
   * Returns a fresh recorder for the work that follows.
   */
  async drain(rec: Recorder, count: number, targets: readonly Target[]): Promise<Recorder> {
    const g = this.trainer.grads;
    rec.dispatch(await this.scale(count));
    this.readback.record(rec, g, 0, count);
    rec.clear(g, 0, count * 4);
    rec.submit();
    const data = await this.readback.readInto(count); // used up before the next drain
    for (const [arena, at, n] of targets) {
      for (let j = 0; j < n; j++) this.host[arena + j] = (this.host[arena + j] ?? 0) + (data[at + j] ?? 0);
    }
    return new Recorder(this.gpu, 'zero.backward');
  }

  destroy(): void {
    for (const op of this.scales.values()) op.destroy();
    this.readback.destroy();
    this.gpu.memory.destroy(this.factor);
  }
}
