// DataParallel's device 0 (torch.nn.DataParallel's cuda:0; BalancedDataParallel's too, with its
// smaller gpu0_bsz chunk). It holds the master parameters, the only optimizer, the whole input
// batch; each step it sends every replica the parameters and its chunk, runs its own chunk,
// gathers all outputs, computes the loss over the whole batch, scatters the output gradients,
// reduce-adds every replica's gradients into its own (x_0 + x_1 + ... in rank order) and steps.
import { storageBuffer } from '../../gpu/buffers.ts';
import { grid1d, makeOp, type Op } from '../../gpu/op.ts';
import { Recorder } from '../../gpu/recorder.ts';
import { lossBackward, lossForward, type LossBuffers } from '../../nn/loss.ts';
import { CIFAR_MEAN, CIFAR_STD } from '../../nn/model.ts';
import { balancedChunks, dataParallelChunks } from './chunks.ts';
import { encodeBatch, pairRecv, pairSend } from './wire.ts';
import { readStaging, type MicroBatch, type ModeContext, type ModeRunner, type StepStats } from '../mode.ts';

/** The chunk of a global batch of `batch` samples each device gets, for the configured mode. */
export function dpChunks(ctx: Pick<ModeContext, 'config' | 'world'>, batch: number): number[] {
  return ctx.config.mode === 'balanced-dp'
    ? balancedChunks(batch, ctx.world, ctx.config.gpu0Bsz)
    : dataParallelChunks(batch, ctx.world);
}

export class DataParallelRoot implements ModeRunner {
  private readonly lossOps = new Map<number, { f: Op; b: Op; normalize: Op }>();

  private constructor(
    private readonly ctx: ModeContext,
    /** The whole batch on device 0: bytes, normalised floats, gathered logits/labels/dlogits. */
    private readonly input: { bytes: GPUBuffer; x: GPUBuffer },
    private readonly loss: LossBuffers,
    private readonly dlogitsStaging: GPUBuffer,
    private readonly reduceBuffer: GPUBuffer,
    private readonly addOp: Op,
  ) {}

  static async create(ctx: ModeContext): Promise<DataParallelRoot> {
    const { gpu, trainer, config } = ctx;
    const B = config.batchSize * ctx.world;
    const act = (label: string, bytes: number) => storageBuffer(gpu, label, bytes, 'activations');
    const input = { bytes: act('dp.batch.bytes', B * 3072), x: act('dp.batch.x', B * 3072 * 4) };
    const loss = {
      logits: act('dp.gathered_logits', B * 40),
      labels: act('dp.labels', B * 4),
      dlogits: act('dp.dlogits', B * 40),
      stats: storageBuffer(gpu, 'dp.stats', 16, 'other'),
    };
    const dlogitsStaging = gpu.memory.createBuffer(gpu.device, {
      label: 'dp.dlogits.readback',
      size: B * 40,
      category: 'communication',
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    const reduceBuffer = storageBuffer(gpu, 'dp.reduce_add', trainer.spec.total * 4, 'communication');
    const k = await gpu.kernels.get('add_scaled');
    const addOp = makeOp(
      gpu,
      k,
      'dp.reduce_add',
      { count: trainer.spec.total, s_off: 0, d_off: 0, alpha: 1 },
      { src: reduceBuffer, dst: trainer.grads },
      grid1d(trainer.spec.total, k.overrides.WG ?? 64),
    );
    return new DataParallelRoot(ctx, input, loss, dlogitsStaging, reduceBuffer, addOp);
  }

  async syncInitial(): Promise<void> {
    /* replicas receive the parameters with every step */
  }

  /** Sends the current parameters to every replica (before evaluation or a checksum). */
  async syncParams(): Promise<void> {
    const p = await this.ctx.trainer.readParams();
    await this.ctx.comm(() => Promise.all([...this.ctx.pairs].map(([r, pg]) => pairSend(pg, p, true, r))));
  }

  async step(micro: readonly MicroBatch[], lr: number): Promise<StepStats> {
    const { trainer, gpu, source, pairs } = this.ctx;
    const mb = micro[0];
    if (!source || !mb || micro.length !== 1)
      throw new Error('DataParallel takes one batch per step (no gradient accumulation)');
    const B = mb.count;
    const batch = source.trainBatch(mb.start, B);
    const sizes = dpChunks(this.ctx, B);
    const offs = sizes.map((_, r) => sizes.slice(0, r).reduce((a, b) => a + b, 0));
    const replicas = [...pairs.keys()].sort((a, b) => a - b);
    const active = replicas.filter((r) => (sizes[r] ?? 0) > 0);
    // Parameters and chunks out to the replicas (torch: replicate + scatter).
    const params = active.length > 0 ? await trainer.readParams() : null;
    const send = Promise.all(
      replicas.map(async (r) => {
        const pg = pairs.get(r);
        if (!pg) return;
        const e = encodeBatch(batch, offs[r] ?? 0, sizes[r] ?? 0);
        await pairSend(pg, e.header, true, r);
        if (params && (sizes[r] ?? 0) > 0) {
          await pairSend(pg, params, true, r);
          await pairSend(pg, e.body, true, r);
        }
      }),
    );
    // The whole batch on device 0; its own chunk through the model.
    const ops = await this.opsFor(B);
    const up = gpu.uploads;
    if ('images' in batch) up.write(this.input.bytes, 0, batch.images, 'other', 'dp.input.bytes');
    else up.write(this.input.x, 0, batch.x, 'other', 'dp.input.x');
    up.write(this.loss.labels, 0, batch.labels, 'other', 'dp.input.labels');
    const n0 = sizes[0] ?? 0;
    const plan0 = n0 > 0 ? await trainer.model.plan(n0) : null;
    let rec = new Recorder(gpu, 'dp.forward');
    if ('images' in batch) rec.dispatch(ops.normalize);
    if (plan0) {
      rec.copy(this.input.x, 0, trainer.model.x, 0, n0 * 3072 * 4);
      rec.phase('forward');
      for (const op of plan0.forward) rec.dispatch(op);
      rec.copy(trainer.model.logits, 0, this.loss.logits, 0, n0 * 40);
    }
    rec.submit();
    await this.ctx.comm(() => send);
    // Gather every replica's outputs, loss over the whole batch, output gradients back out.
    await this.ctx.comm(() =>
      Promise.all(
        active.map(async (r) => {
          const l = await pairRecv(pairs.get(r)!, (sizes[r] ?? 0) * 10, true, r);
          up.write(this.loss.logits, (offs[r] ?? 0) * 40, l, 'communication', 'dp.gathered_logits');
        }),
      ),
    );
    rec = new Recorder(gpu, 'dp.loss_backward');
    rec.dispatch(ops.f);
    rec.dispatch(ops.b);
    const statsBuf = trainer.copyStatsFrom(rec, this.loss.stats);
    rec.copy(this.loss.dlogits, 0, this.dlogitsStaging, 0, B * 40);
    if (plan0) {
      rec.copy(this.loss.dlogits, 0, trainer.model.dlogits, 0, n0 * 40);
      trainer.recordBackward(rec, plan0, undefined, false);
    }
    rec.submit();
    const stats = await trainer.readStats(statsBuf, B);
    const dl = await readStaging(this.dlogitsStaging, B * 10);
    await this.ctx.comm(() =>
      Promise.all(
        active.map((r) =>
          pairSend(pairs.get(r)!, dl.subarray((offs[r] ?? 0) * 10, ((offs[r] ?? 0) + (sizes[r] ?? 0)) * 10), true, r),
        ),
      ),
    );
    // Reduce-add the replicas' gradients into device 0's, in rank order.
    for (const r of active) {
      const g = await this.ctx.comm(() => pairRecv(pairs.get(r)!, trainer.spec.total, true, r));
      // writeBuffer, not the upload pool: the W-1 writes would each hold a staging buffer the
      // size of the model in flight at once, memory that device 0 under DataParallel does not need.
      gpu.device.queue.writeBuffer(this.reduceBuffer, 0, g);
      rec = new Recorder(gpu, 'dp.reduce_add');
      rec.dispatch(this.addOp);
      rec.submit();
    }
    rec = new Recorder(gpu, 'dp.update');
    trainer.recordUpdate(rec, lr);
    rec.submit();
    return { loss: stats.loss, correct: stats.correct, samples: B };
  }

  private async opsFor(B: number): Promise<{ f: Op; b: Op; normalize: Op }> {
    let o = this.lossOps.get(B);
    if (!o) {
      const { gpu } = this.ctx;
      const kn = await gpu.kernels.get('normalize_input');
      const count = B * 3072;
      const normalize = makeOp(
        gpu,
        kn,
        'dp.batch.normalize',
        { count, c: 3, hw: 1024, pad: 0, mean: [...CIFAR_MEAN, 0], stdev: [...CIFAR_STD, 1] },
        { bytes: this.input.bytes, x: this.input.x },
        grid1d(Math.ceil(count / 4), kn.overrides.WG ?? 64),
      );
      o = { f: await lossForward(gpu, this.loss, B, 10), b: await lossBackward(gpu, this.loss, B, 10), normalize };
      this.lossOps.set(B, o);
    }
    return o;
  }

  dispose(): void {
    const m = this.ctx.gpu.memory;
    for (const o of this.lossOps.values()) {
      o.f.destroy();
      o.b.destroy();
      o.normalize.destroy();
    }
    this.addOp.destroy();
    for (const b of [
      this.input.bytes,
      this.input.x,
      this.loss.logits,
      this.loss.labels,
      this.loss.dlogits,
      this.loss.stats,
      this.dlogitsStaging,
      this.reduceBuffer,
    ])
      m.destroy(b);
  }
}
