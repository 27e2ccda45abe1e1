// DistributedDataParallel's step: every rank holds the whole model and its optimizer and trains on
// its own shard. Gradients are averaged in buckets (reverse parameter order, 1 MiB first bucket,
// then bucketCapMB, as PyTorch's Reducer): as soon as backward has produced a bucket's gradients,
// they are pre-divided by the world size on the GPU, copied out, and all-reduced over the ring
// while the GPU goes on with the earlier layers' backward. Then every rank steps its own optimizer.
// Gradient accumulation: micro-batches before the last run without any all-reduce (no_sync).
import { bufferFrom } from '../../gpu/buffers.ts';
import { grid1d, makeOp, type Op } from '../../gpu/op.ts';
import { Readback } from '../../gpu/readback.ts';
import { Recorder } from '../../gpu/recorder.ts';
import type { StepPlan } from '../../nn/model.ts';
import { StatsSum, type MicroBatch, type ModeContext, type ModeRunner, type StepStats } from '../mode.ts';
import { computeBuckets, type Bucket } from './buckets.ts';

interface BucketIO {
  readonly bucket: Bucket;
  readonly prescale: Op;
  readonly readback: Readback;
}

export class DdpRunner implements ModeRunner {
  private constructor(
    private readonly ctx: ModeContext,
    private readonly buckets: readonly BucketIO[],
    private readonly factor: GPUBuffer,
  ) {}

  static async create(ctx: ModeContext): Promise<DdpRunner> {
    const { gpu, trainer, world } = ctx;
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
      readback: new Readback(gpu, `ddp.bucket${bucket.index}`, bucket.count),
    }));
    return new DdpRunner(ctx, buckets, factor);
  }

  /** Rank 0's parameters to everyone (DDP's constructor does this). */
  async syncInitial(): Promise<void> {
    const { trainer, pg, world } = this.ctx;
    if (world === 1) return;
    const p = await trainer.readParams();
    await this.ctx.comm(() => pg.broadcast(p, 0), 'broadcast');
    trainer.setParams(p);
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
    for (const [m, mb] of micro.entries()) {
      const endData = tracer.begin('data', 'data');
      const batch = source.trainBatch(mb.start, mb.count);
      endData();
      const plan = await trainer.upload(batch);
      plan.lossBackward.setParams({ scale: 1 / (mb.count * micro.length) });
      const rec = new Recorder(this.ctx.gpu, 'ddp.forward_backward');
      trainer.recordForward(rec, plan, 'images' in batch);
      const statsBuf = trainer.copyStats(rec);
      // no_sync: only the last micro-batch of a step all-reduces.
      const sync = m === micro.length - 1 && world > 1;
      // One worker, one micro-batch: the update goes in the same submit, so that the next step
      // (the coordinator may already have asked for it: ParallelMode.pipelines) queues behind it.
      const alone = world === 1 && micro.length === 1;
      let reduced = Promise.resolve();
      if (sync) reduced = this.backwardWithBuckets(rec, plan);
      else {
        trainer.recordBackward(rec, plan);
        if (alone) trainer.recordUpdate(rec, lr);
        rec.submit();
        if (alone) submitted();
      }
      // Both awaited together: if one fails (e.g. the rank is disposed mid-step after a peer died),
      // the other's rejection is still handled instead of surfacing as an unhandled error.
      const stat = tracer.span('readback stats', 'step', () => trainer.readStats(statsBuf, mb.count));
      const [r] = await Promise.all([stat, reduced]);
      stats.add(r.loss, r.correct, mb.count);
      if (alone) return stats.value;
    }
    const rec = new Recorder(this.ctx.gpu, 'ddp.update');
    trainer.recordUpdate(rec, lr);
    rec.submit();
    return stats.value;
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
    for (const seg of plan.backward) {
      for (const op of seg.ops) rec.dispatch(op);
      rec.layer(`${seg.layer}.backward`);
      for (const p of seg.ready) ready.add(p.name);
      for (const b of this.buckets) {
        if (done.has(b.bucket.index) || !b.bucket.params.every((p) => ready.has(p.name))) continue;
        done.add(b.bucket.index);
        const name = `bucket ${b.bucket.index}`;
        rec.phase(`${name} copy`);
        rec.dispatch(b.prescale);
        b.readback.record(rec, trainer.grads, b.bucket.offset, b.bucket.count);
        rec.submit();
        rec = new Recorder(gpu, 'ddp.backward');
        chain = chain.then(async () => {
          // Waiting for the copy is waiting for the GPU (its backward), not communication: a mark.
          const data = await b.readback.read(b.bucket.count);
          tracer.mark(`${name} ready`, 'comm', { bytes: b.bucket.count * 4 });
          await this.ctx.comm(() => pg.allReduce(data), `all-reduce ${name}`);
          const endWrite = tracer.begin(`write ${name}`, 'comm');
          trainer.writeGrads(b.bucket.offset, data, `ddp.bucket${b.bucket.index}`);
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
      b.readback.destroy();
    }
    this.ctx.gpu.memory.destroy(this.factor);
  }
}
