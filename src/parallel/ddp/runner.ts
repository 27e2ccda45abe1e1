// DistributedDataParallel's step: every rank holds the whole model and its optimizer and trains on
// its own shard. Gradients are averaged in buckets (reverse parameter order, 1 MiB first bucket,
// then bucketCapMB, as PyTorch's Reducer): as soon as backward has produced a bucket's gradients,
// they are pre-divided by the world size on the GPU, copied out, and all-reduced over the ring
// while the GPU goes on with the earlier layers' backward. Then every rank steps its own optimizer.
// Gradient accumulation: micro-batches before the last run without any all-reduce (no_sync).
// fp16 (DeepSpeed's fp16 section): the loss gradient is multiplied by the loss scale, each bucket is
// packed into halves and all-reduced as fp16 (half the bytes, as PyTorch's fp16_compress_hook), the
// halves are checked for inf/NaN and unscaled into the float32 gradients, and an overflowing step
// skips the optimizer (../fp16.ts). bf16 (DeepSpeed's bf16 section): the same with bfloat16 pairs
// summed as bfloat16, and no loss scale, no overflow check, no skipped step.
import { bufferFrom } from '../../gpu/buffers.ts';
import { grid1d, makeOp, type Op } from '../../gpu/op.ts';
import { Readback } from '../../gpu/readback.ts';
import type { DeviceReduce } from './device-reduce.ts';
import { Recorder } from '../../gpu/recorder.ts';
import type { StepPlan } from '../../nn/model.ts';
import { StatsSum, type MicroBatch, type ModeContext, type ModeRunner, type StepStats } from '../mode.ts';
import { computeBuckets, type Bucket } from './buckets.ts';
import { HalfGradients } from '../../train/half-grads.ts';
import type { LossScaler } from '../../optim/loss-scaler.ts';
import { lossScalerOf, scalerStep } from '../fp16.ts';

interface BucketIO {
  readonly bucket: Bucket;
  readonly prescale: Op;
  /** How the bucket is averaged: read back for the host ring, or summed on the device the ranks share. */
  readonly path: { readonly ring: Readback } | { readonly device: DeviceReduce };
}

export class DdpRunner implements ModeRunner {
  private constructor(
    private readonly ctx: ModeContext,
    private readonly buckets: readonly BucketIO[],
    private readonly factor: GPUBuffer,
    /** fp16 or bf16: the gradient pairs and (fp16 only) the loss scaler; null: float32. */
    private readonly mixed: { readonly half: HalfGradients; readonly scaler: LossScaler | null } | null,
  ) {}

  static async create(ctx: ModeContext): Promise<DdpRunner> {
    const { gpu, trainer, world } = ctx;
    const format = ctx.config.bf16 ? 'bf16' : ctx.config.fp16 ? 'f16' : null;
    const fp16 = format !== null;
    const factor = bufferFrom(gpu, 'ddp.inv_world', Float32Array.of(1 / world), 'other');
    const k = await gpu.kernels.get('scale');
    const buckets = computeBuckets(trainer.spec.params, ctx.config.bucketCapMB).map((bucket) => ({
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
      path: ctx.colocated
        ? { device: ctx.colocated }
        : { ring: new Readback(gpu, `ddp.bucket${bucket.index}`, fp16 ? Math.ceil(bucket.count / 2) : bucket.count) },
    }));
    const half = fp16
      ? await HalfGradients.create(
          gpu,
          trainer.grads,
          buckets.map((b) => b.bucket),
          format,
        )
      : null;
    const scaler = format === 'f16' ? lossScalerOf(ctx.config) : null;
    return new DdpRunner(ctx, buckets, factor, half ? { half, scaler } : null);
  }

  /** Rank 0's parameters to everyone (DDP's constructor does this). */
  async syncInitial(): Promise<void> {
    const { trainer, pg, world } = this.ctx;
    if (world === 1) return;
    const p = await trainer.readParams();
    await this.ctx.comm(() => pg.broadcast(p, 0), 'broadcast');
    trainer.setParams(p);
  }

  lossScaler(): LossScaler | null {
    return this.mixed?.scaler ?? null;
  }

  async syncParams(): Promise<void> {
    /* replicas are always in sync */
  }

  /** Settles once the previous step has submitted all its work (pipelined steps start after it). */
  private queued: Promise<void> = Promise.resolve();

  async step(micro: readonly MicroBatch[], lr: number): Promise<StepStats> {
    const before = this.queued;
    let release = () => {};
    this.queued = new Promise((r) => (release = r));
    try {
      await before;
      return await this.run(micro, lr, release);
    } finally {
      release();
    }
  }

  private async run(micro: readonly MicroBatch[], lr: number, submitted: () => void): Promise<StepStats> {
    const { trainer, source, world, tracer } = this.ctx;
    if (!source) throw new Error('DDP rank has no data source');
    const stats = new StatsSum();
    const lossScale = this.mixed?.scaler?.scale ?? 1;
    for (const [m, mb] of micro.entries()) {
      const endData = tracer.begin('data', 'data');
      const batch = source.trainBatch(mb.start, mb.count);
      endData();
      const plan = await trainer.upload(batch);
      plan.lossBackward.setParams({ scale: lossScale / (mb.count * micro.length) });
      const rec = new Recorder(this.ctx.gpu, 'ddp.forward_backward');
      trainer.recordForward(rec, plan, 'images' in batch);
      const statsBuf = trainer.copyStats(rec);
      // no_sync: only the last micro-batch of a step all-reduces.
      const sync = m === micro.length - 1 && world > 1;
      // One worker, one micro-batch: the update goes in the same submit, so that the next step
      // (the coordinator may already have asked for it: ParallelMode.pipelines) queues behind it.
      const alone = world === 1 && micro.length === 1 && !this.mixed;
      let reduced = Promise.resolve();
      // Ranks sharing a device, one micro-batch: the update is queued as soon as every bucket's sum
      // is, and the next step (ParallelMode.pipelines) may start before this step's loss is back.
      const queued = sync && this.ctx.colocated !== undefined && micro.length === 1 && !this.mixed;
      if (queued)
        reduced = this.backwardWithBuckets(rec, plan).then(() => {
          const update = new Recorder(this.ctx.gpu, 'ddp.update');
          trainer.recordUpdate(update, lr);
          update.submit();
          submitted();
        });
      else if (sync) reduced = this.backwardWithBuckets(rec, plan);
      else {
        trainer.recordBackward(rec, plan);
        if (alone) trainer.recordUpdate(rec, lr);
        // fp16 on one worker: the gradients still become halves (their precision and overflow)
        if (this.mixed && world === 1 && m === micro.length - 1)
          for (const k of this.buckets.keys()) this.mixed.half.recordPack(rec, k);
        rec.submit();
        if (alone) submitted();
      }
      // Both awaited together: if one fails (e.g. the rank is disposed mid-step after a peer died),
      // the other's rejection is still handled instead of surfacing as an unhandled error.
      const stat = tracer.span('readback stats', 'step', () => trainer.readStats(statsBuf, mb.count));
      const [r] = await Promise.all([stat, reduced]);
      stats.add(r.loss, r.correct, mb.count);
      if (alone || queued) return stats.value;
    }
    if (this.mixed?.scaler)
      return { ...stats.value, fp16: await this.fp16Update(this.mixed.half, this.mixed.scaler, lr) };
    if (this.mixed) {
      // bf16: the reduced pairs widened into the float32 gradients (exact), then the step
      const rec = new Recorder(this.ctx.gpu, 'ddp.bf16.update');
      this.mixed.half.recordUnscale(rec, 1);
      trainer.recordUpdate(rec, lr);
      rec.submit();
      return stats.value;
    }
    const rec = new Recorder(this.ctx.gpu, 'ddp.update');
    trainer.recordUpdate(rec, lr);
    rec.submit();
    return stats.value;
  }

  /** fp16: checks the reduced halves for overflow, unscales them, and steps unless the scaler skips. */
  private async fp16Update(half: HalfGradients, scaler: LossScaler, lr: number) {
    const { gpu, trainer } = this.ctx;
    const check = new Recorder(gpu, 'ddp.fp16.unscale');
    half.recordUnscale(check, scaler.scale);
    check.submit();
    const info = scalerStep(scaler, await half.readOverflow());
    const rec = new Recorder(gpu, 'ddp.update');
    if (info.skipped) rec.clear(trainer.grads);
    else trainer.recordUpdate(rec, lr);
    rec.submit();
    return info;
  }

  /**
   * Records the backward, submitting after each layer that completes a bucket; each bucket's
   * all-reduce starts once its copy has landed (in bucket order on every rank) and overlaps the
   * rest of the backward. Resolves when every bucket is reduced and written back.
   */
  private backwardWithBuckets(first: Recorder, plan: StepPlan): Promise<void> {
    const { trainer, pg, gpu, tracer } = this.ctx;
    let rec = first;
    rec.phase('backward');
    rec.dispatch(plan.lossBackward);
    rec.layer('loss.backward');
    const ready = new Set<string>();
    const done = new Set<number>();
    let chain = Promise.resolve();
    const half = this.mixed?.half;
    for (const seg of plan.backward) {
      for (const op of seg.ops) rec.dispatch(op);
      rec.layer(`${seg.layer}.backward`);
      for (const p of seg.ready) ready.add(p.name);
      for (const [k, b] of this.buckets.entries()) {
        if (done.has(b.bucket.index) || !b.bucket.params.every((p) => ready.has(p.name))) continue;
        done.add(b.bucket.index);
        const name = `bucket ${b.bucket.index}`;
        rec.phase(`${name} copy`);
        rec.dispatch(b.prescale);
        if ('device' in b.path) {
          const local = b.path.device;
          // Ranks sharing this device: the bucket is summed on the GPU, never read back.
          rec.submit();
          rec = new Recorder(gpu, 'ddp.backward');
          const { offset, count } = b.bucket;
          chain = chain.then(() =>
            this.ctx.comm(
              () => local.allReduce(gpu, this.ctx.rank, trainer.grads, offset, count),
              `all-reduce ${name}`,
            ),
          );
          continue;
        }
        const readback = b.path.ring;
        // fp16: the bucket's halves travel (fp16_compress_hook: divided by W, then cast)
        const n = half ? half.wordCount(k) : b.bucket.count;
        if (half) half.recordPack(rec, k);
        if (half) readback.record(rec, half.words, half.wordOffsets[k] ?? 0, n);
        else readback.record(rec, trainer.grads, b.bucket.offset, n);
        rec.submit();
        rec = new Recorder(gpu, 'ddp.backward');
        chain = chain.then(async () => {
          // Waiting for the copy is waiting for the GPU (its backward), not communication: a mark.
          const data = await readback.read(n);
          tracer.mark(`${name} ready`, 'comm', { bytes: n * 4 });
          const packed = half ? (half.format === 'bf16' ? { bf16: true } : { halves: true }) : {};
          await this.ctx.comm(() => pg.allReduce(data, { ...packed, bucket: b.bucket.index }), `all-reduce ${name}`);
          const endWrite = tracer.begin(`write ${name}`, 'comm');
          const label = `ddp.bucket${b.bucket.index}`;
          if (half) half.writeWords(k, new Uint32Array(data.buffer, data.byteOffset, n), label);
          else trainer.writeGrads(b.bucket.offset, data, label);
          endWrite();
        });
      }
    }
    rec.submit();
    return chain;
  }

  dispose(): void {
    for (const b of this.buckets) {
      b.prescale.destroy();
      if ('ring' in b.path) b.path.ring.destroy();
    }
    this.mixed?.half.destroy();
    this.ctx.gpu.memory.destroy(this.factor);
  }
}
