// The bucketed backward of a data-parallel replica (PyTorch's Reducer): the backward is recorded
// layer by layer, and after the layer that completes a bucket, the bucket's gradients are
// pre-divided by the world size on the GPU and announced to the mode's hook as ready: read back
// to the host (fp16 / bf16: packed into halves first, half the bytes), where the hook reduces
// them in place and this writes them back. Each bucket's copy is mapped as soon as it is submitted
// and announced once it lands (in bucket order on every rank), while the GPU goes on with the
// earlier layers' backward; a bucket is written back while the next one's ring runs. Where the
// ranks share one device, nothing is read back: every bucket is pre-divided, and the step joins
// the other ranks' (shared-step.ts, device-reduce.ts: the gradients summed on the device and every
// rank's update, all submitted at once). Then the
// update: the optimizer (fp16: after the overflow check and unscale of the reduced halves, the check
// done on the host where every bucket passed through it; bf16: after widening them). One worker with
// 16-bit gradients whose steps are pipelined (localStep) records it all in one submit, fp16's loss
// scaler deciding on the GPU (local-half-step.ts, gpu-scaler.ts).
import { bufferFrom } from '../gpu/buffers.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import { Readback } from '../gpu/readback.ts';
import { Recorder } from '../gpu/recorder.ts';
import type { ParamSpec } from '../nn/spec.ts';
import { halvesOverflow } from '../numeric/f16.ts';
import { GpuLossScaler, type GpuScalerConfig } from './gpu-scaler.ts';
import { LocalHalfStep } from './local-half-step.ts';
import { HalfGradients } from './half-grads.ts';
import { SharedDeviceStep, type SharedPlace } from './shared-step.ts';
import type { HalfFormat } from './half-format.ts';
import type { Pass } from './pass.ts';
import type { Trainer } from './trainer.ts';

/** A bucket of parameters whose gradients are one contiguous range of the arena. */
export interface GradBucket {
  readonly index: number;
  /** Parameters in the bucket, in ready order. */
  readonly params: readonly ParamSpec[];
  readonly offset: number;
  readonly count: number;
}

/** How a bucket's values travel: float32, fp16 pairs summed as halves, or bfloat16 pairs. */
export interface Packing {
  readonly halves?: boolean;
  readonly bf16?: boolean;
}

/**
 * A bucket whose gradients backward has produced (already divided by W), on the host, to be
 * reduced in place (this rank's values in, the reduced values out; the trainer writes them back).
 */
export interface ReadyBucket {
  readonly index: number;
  readonly data: Float32Array;
  readonly packing: Packing;
}

/** What the mode does with a ready bucket; resolves once the bucket is reduced. */
export type BucketHook = (bucket: ReadyBucket) => Promise<void>;

/** Bucket k's copy to the host, submitted: `n` words (fp16 / bf16: pairs), landing in `landed`. */
interface BucketCopy {
  readonly k: number;
  readonly bucket: GradBucket;
  readonly landed: Promise<Float32Array>;
  readonly n: number;
}

interface BucketIO {
  readonly bucket: GradBucket;
  readonly prescale: Op;
  /** The host's copy of the bucket; null where the ranks share a device. */
  readonly readback: Readback | null;
}

export class BucketedBackward {
  private constructor(
    private readonly trainer: Trainer,
    private readonly buckets: readonly BucketIO[],
    private readonly factor: GPUBuffer,
    /** fp16 or bf16: the gradient pairs; null: float32. */
    private readonly half: HalfGradients | null,
    /** Ranks sharing this device: their step, which sums the buckets there; null: a device of its own. */
    readonly onDevice: SharedDeviceStep | null,
    /** fp16 on one worker, pipelined: the loss scaler on the GPU (localStep); else null. */
    private readonly scaler: GpuLossScaler | null,
  ) {}

  /**
   * fp16 buckets reduced on the host this step: whether any of their reduced halves (the very
   * words written back) is infinite or NaN; null when the halves were not all seen on the host
   * (one worker), and update() then reads the GPU's check back.
   */
  private hostOverflow: boolean | null = null;

  private localStep: LocalHalfStep | null = null;

  static async create(
    trainer: Trainer,
    buckets: readonly GradBucket[],
    o: {
      readonly world: number;
      readonly format: HalfFormat | null;
      readonly shared: SharedPlace | null;
      /** fp16 on one worker, pipelined (localStep): the loss scaler the GPU runs. */
      readonly gpuScaler?: GpuScalerConfig | null;
    },
  ): Promise<BucketedBackward> {
    const { gpu } = trainer;
    const factor = bufferFrom(gpu, 'ddp.inv_world', Float32Array.of(1 / o.world), 'other');
    const k = await gpu.kernels.get('scale');
    const io = buckets.map((bucket) => ({
      bucket,
      prescale: makeOp(
        gpu,
        k,
        `ddp.bucket${bucket.index}.prescale`,
        { count: bucket.count, offset: bucket.offset, factor_index: 0 },
        { factor, data: trainer.grads },
        grid1d(bucket.count, k.overrides.WG ?? 64),
      ),
      // fp16: the bucket's halves, two per word
      readback: o.shared
        ? null
        : new Readback(gpu, `ddp.bucket${bucket.index}`, o.format ? Math.ceil(bucket.count / 2) : bucket.count),
    }));
    const half = o.format ? await HalfGradients.create(gpu, trainer.grads, buckets, o.format) : null;
    if (o.gpuScaler && half?.format !== 'f16') throw new Error('a loss scaler on the GPU needs fp16 gradients');
    const scaler = o.gpuScaler && half ? await GpuLossScaler.create(gpu, half.overflowFlag, o.gpuScaler) : null;
    const onDevice = o.shared
      ? new SharedDeviceStep(trainer, o.shared, {
          prescales: io.map((b) => b.prescale),
          // the gradients the buckets hold, from the arena's start
          count: Math.max(...buckets.map((b) => b.offset + b.count)),
          halves: half !== null,
        })
      : null;
    return new BucketedBackward(trainer, io, factor, half, onDevice, scaler);
  }

  /** One worker with 16-bit gradients whose steps are pipelined: its whole step in one submit (local-half-step.ts). */
  get local(): LocalHalfStep {
    const { trainer, half } = this;
    if (!half || this.onDevice) throw new Error('localStep: one worker with 16-bit gradients only');
    return (this.localStep ??= new LocalHalfStep(trainer, half, this.scaler));
  }

  /** Whether the gradients travel as 16-bit pairs (then update() needs the loss scale's check). */
  get mixed(): boolean {
    return this.half !== null;
  }

  /** Records the packing of every bucket into halves (fp16 / bf16 on one worker: their precision and overflow). */
  readonly packAll = (rec: Recorder): void => {
    if (this.half) for (const k of this.buckets.keys()) this.half.recordPack(rec, k);
  };

  /**
   * Records `pass`'s backward, submitting after each layer that completes a bucket; `hook` gets
   * each bucket once it is ready, in bucket order. Resolves when every bucket is reduced and back.
   * Not for ranks sharing a device (shared-step.ts).
   */
  backward(pass: Pass, hook: BucketHook): Promise<void> {
    if (this.onDevice) throw new Error('backward: ranks sharing a device take SharedDeviceStep.sharedStep');
    const { trainer, half } = this;
    const { gpu } = trainer;
    const { plan } = pass;
    let rec = pass.rec;
    rec.phase('backward');
    rec.dispatch(plan.lossBackward);
    rec.layer('loss.backward');
    const ready = new Set<string>();
    const done = new Set<number>();
    const copies: BucketCopy[] = [];
    this.hostOverflow = half?.format === 'f16' ? false : null;
    for (const seg of plan.backward) {
      for (const op of seg.ops) rec.dispatch(op);
      rec.layer(`${seg.layer}.backward`);
      for (const p of seg.ready) ready.add(p.name);
      for (const [k, b] of this.buckets.entries()) {
        if (done.has(b.bucket.index) || !b.bucket.params.every((p) => ready.has(p.name))) continue;
        done.add(b.bucket.index);
        const { index, offset, count } = b.bucket;
        rec.phase(`bucket ${index} copy`);
        rec.dispatch(b.prescale);
        const readback = b.readback;
        if (!readback) throw new Error(`bucket ${index} has no host copy`);
        // fp16: the bucket's halves travel (fp16_compress_hook: divided by W, then cast)
        const n = half ? half.wordCount(k) : count;
        if (half) half.recordPack(rec, k);
        if (half) readback.record(rec, half.words, half.wordOffsets[k] ?? 0, n);
        else readback.record(rec, trainer.grads, offset, n);
        rec.submit();
        rec = new Recorder(gpu, 'ddp.backward');
        // mapped at once, so that a bucket's copy is on the host as soon as the ring is free for it
        const landed = readback.readInto(n).then((data) => {
          gpu.tracer.mark(`bucket ${index} ready`, 'comm', { bytes: n * 4 });
          return data;
        });
        landed.catch(() => {}); // handled in reduceOnHost; a rejection here is no unhandled one
        copies.push({ k, bucket: b.bucket, landed, n });
      }
    }
    rec.submit();
    return this.reduceOnHost(copies, hook);
  }

  /**
   * The buckets' copies, in bucket order as each lands, through `hook` and back into the
   * gradients. A bucket is written back while the next one's ring is under way (its first messages
   * sent): the write is host work the ring's waiting for the other ranks hides.
   */
  private async reduceOnHost(copies: readonly BucketCopy[], hook: BucketHook): Promise<void> {
    const { half } = this;
    const packing = half ? (half.format === 'bf16' ? { bf16: true } : { halves: true }) : {};
    let previous: { readonly copy: BucketCopy; readonly data: Float32Array } | null = null;
    for (const copy of copies) {
      // Waiting for the copy is waiting for the GPU (its backward), not communication: marked as it lands.
      const data = await copy.landed;
      const reduced = hook({ index: copy.bucket.index, data, packing });
      if (previous) this.writeBack(previous.copy, previous.data);
      await reduced;
      previous = { copy, data };
    }
    if (previous) this.writeBack(previous.copy, previous.data);
  }

  /** A reduced bucket back into the gradients (fp16: its halves, checked for inf/NaN on the way). */
  private writeBack({ k, bucket, n }: BucketCopy, data: Float32Array): void {
    const { half, trainer } = this;
    const endWrite = trainer.gpu.tracer.begin(`write bucket ${bucket.index}`, 'comm');
    const label = `ddp.bucket${bucket.index}`;
    if (half) {
      const words = new Uint32Array(data.buffer, data.byteOffset, n);
      half.writeWords(k, words, label);
      // the GPU's overflow check over these words, done here: the update needs no readback
      if (this.hostOverflow === false && halvesOverflow(words)) this.hostOverflow = true;
    } else trainer.writeGrads(bucket.offset, data, label);
    endWrite();
  }

  /**
   * The optimizer step on the reduced gradients. fp16: the halves checked for inf/NaN and
   * unscaled by `lossScale` first; `decide(overflow)` says whether to skip the step (the gradients
   * are then cleared). bf16: the pairs widened into float32 first (no check, never skipped).
   */
  async update<T extends { readonly skipped: boolean }>(
    lr: number,
    fp16?: { readonly lossScale: number; readonly decide: (overflow: boolean) => T },
  ): Promise<T | undefined> {
    const { trainer, half } = this;
    const { gpu } = trainer;
    const hostOverflow = this.hostOverflow;
    this.hostOverflow = null;
    if (half && fp16 && hostOverflow !== null) {
      // every reduced half was checked on the host: unscale and step (or clear) in one submit
      const info = fp16.decide(hostOverflow);
      const rec = new Recorder(gpu, 'ddp.fp16.update');
      half.recordUnscale(rec, fp16.lossScale, false);
      if (info.skipped) rec.clear(trainer.grads);
      else trainer.recordUpdate(rec, lr);
      rec.submit();
      return info;
    }
    if (half && fp16) {
      const check = new Recorder(gpu, 'ddp.fp16.unscale');
      half.recordUnscale(check, fp16.lossScale);
      check.submit();
      const info = fp16.decide(await half.readOverflow());
      const rec = new Recorder(gpu, 'ddp.update');
      if (info.skipped) rec.clear(trainer.grads);
      else trainer.recordUpdate(rec, lr);
      rec.submit();
      return info;
    }
    const rec = new Recorder(gpu, half ? 'ddp.bf16.update' : 'ddp.update');
    // bf16: the reduced pairs widened into the float32 gradients (exact), then the step
    half?.recordUnscale(rec, 1);
    trainer.recordUpdate(rec, lr);
    rec.submit();
    return undefined;
  }

  destroy(): void {
    for (const b of this.buckets) {
      b.prescale.destroy();
      b.readback?.destroy();
    }
    this.half?.destroy();
    this.scaler?.destroy();
    this.trainer.gpu.memory.destroy(this.factor);
  }
}
