// DataParallel's device 0 (torch.nn.DataParallel's cuda:0; BalancedDataParallel's too, with its
// smaller gpu0_bsz chunk). It holds the master parameters, the only optimizer, the whole input
// batch; each step it sends every replica the parameters and its chunk, runs its own chunk,
// gathers all outputs, computes the loss over the whole batch, scatters the output gradients,
// reduce-adds every replica's gradients into its own (x_0 + x_1 + ... in rank order) and steps.
// fp16 (torch.cuda.amp's GradScaler on device 0, with DeepSpeed's fp16 storage): device 0 keeps
// the fp32 master and the optimizer, sends the replicas the fp16 parameters (packed halves, half
// the bytes) and scales the loss over the whole batch; the replicas send their gradients back as
// halves, which device 0 widens (exactly) and adds to its own in float32. At the step's end the
// sum is packed into halves, checked for inf/NaN and unscaled (as DDP fp16 on one worker); an
// overflowing step is skipped.
import { storageBuffer, writeFloats } from '../../gpu/buffers.ts';
import { grid1d, makeOp, type Op } from '../../gpu/op.ts';
import { Readback } from '../../gpu/readback.ts';
import { Recorder } from '../../gpu/recorder.ts';
import { numel } from '../../nn/layer.ts';
import { lossBackward, lossForward, type LossBuffers } from '../../nn/loss.ts';
import { normalizeOp } from '../../nn/model.ts';
import { StatsSum, type MicroBatch, type ModeContext, type ModeRunner, type StepStats } from '../mode.ts';
import type { StepResult } from '../../train/trainer.ts';
import { HalfGradients } from '../../train/half-grads.ts';
import type { LossScaler } from '../../optim/loss-scaler.ts';
import { halvesView } from '../../comm/collectives.ts';
import { unpackHalves } from '../../numeric/f16.ts';
import { lossScalerOf, scalerStep, type Fp16StepInfo } from '../fp16.ts';
import type { ChunkRule } from './chunks.ts';
import { encodeBatch, pairRecv, pairSend } from './wire.ts';

export class DataParallelRoot implements ModeRunner {
  private readonly lossOps = new Map<number, { f: Op; b: Op<'softmax_xent_backward'>; normalize: Op }>();

  private constructor(
    private readonly ctx: ModeContext,
    private readonly chunks: ChunkRule,
    /** The whole batch on device 0: bytes, normalised floats, gathered logits/labels/dlogits. */
    private readonly input: { bytes: GPUBuffer; x: GPUBuffer },
    private readonly loss: LossBuffers,
    private readonly dlogitsReadback: Readback,
    private readonly reduceBuffer: GPUBuffer,
    private readonly addOp: Op,
    /** fp16: the loss scaler and the gradient halves of the step's sum (overflow check, unscale). */
    private readonly fp16: { readonly scaler: LossScaler; readonly half: HalfGradients } | null,
  ) {}

  lossScaler(): LossScaler | null {
    return this.fp16?.scaler ?? null;
  }

  static async create(ctx: ModeContext, chunks: ChunkRule): Promise<DataParallelRoot> {
    const { gpu, trainer, config } = ctx;
    const B = config.batchSize * ctx.world;
    const { input: shape, classes } = trainer.spec;
    const act = (label: string, bytes: number) => storageBuffer(gpu, label, bytes, 'activations');
    const input = { bytes: act('dp.batch.bytes', B * numel(shape)), x: act('dp.batch.x', B * numel(shape) * 4) };
    const loss = {
      logits: act('dp.gathered_logits', B * classes * 4),
      labels: act('dp.labels', B * 4),
      dlogits: act('dp.dlogits', B * classes * 4),
      stats: storageBuffer(gpu, 'dp.stats', 16, 'other'),
    };
    const dlogitsReadback = new Readback(gpu, 'dp.dlogits.readback', B * classes);
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
    const fp16 = config.fp16
      ? {
          scaler: lossScalerOf(config),
          half: await HalfGradients.create(gpu, trainer.grads, [{ offset: 0, count: trainer.spec.total }]),
        }
      : null;
    return new DataParallelRoot(ctx, chunks, input, loss, dlogitsReadback, reduceBuffer, addOp, fp16);
  }

  /** The parameters the replicas get: float32, or fp16's packed halves (as floats' bits, for the wire). */
  private async outgoing(): Promise<Float32Array> {
    const t = this.ctx.trainer;
    return this.fp16 ? halvesView(await t.readHalves()) : t.readParams();
  }

  async syncInitial(): Promise<void> {
    /* replicas receive the parameters with every step */
  }

  /** Sends the current parameters to every replica (before evaluation or a checksum). */
  async syncParams(): Promise<void> {
    const p = await this.outgoing();
    await this.ctx.comm(
      () => Promise.all([...this.ctx.pairs].map(([r, pg]) => pairSend(pg, p, true, r))),
      'send params',
    );
  }

  /** gradAccum whole DataParallel passes (gradients add up on device 0), then the one optimizer step. */
  async step(micro: readonly MicroBatch[], lr: number): Promise<StepStats> {
    const stats = new StatsSum();
    for (const [m, mb] of micro.entries()) {
      const r = await this.micro(mb, micro.length, m < micro.length - 1);
      stats.add(r.loss, r.correct, mb.count);
    }
    if (this.fp16) return { ...stats.value, fp16: await this.fp16Update(this.fp16, lr) };
    const rec = new Recorder(this.ctx.gpu, 'dp.update');
    this.ctx.trainer.recordUpdate(rec, lr);
    rec.submit();
    return stats.value;
  }

  /** fp16: the summed gradients packed into halves, checked and unscaled; the step unless the scaler skips. */
  private async fp16Update(f: NonNullable<DataParallelRoot['fp16']>, lr: number): Promise<Fp16StepInfo> {
    const { gpu, trainer } = this.ctx;
    const check = new Recorder(gpu, 'dp.fp16.unscale');
    f.half.recordPack(check, 0);
    f.half.recordUnscale(check, f.scaler.scale);
    check.submit();
    const info = scalerStep(f.scaler, await f.half.readOverflow());
    const rec = new Recorder(gpu, 'dp.update');
    if (info.skipped) rec.clear(trainer.grads);
    else trainer.recordUpdate(rec, lr);
    rec.submit();
    return info;
  }

  private async micro(mb: MicroBatch, accum: number, more: boolean): Promise<StepResult> {
    const { trainer, gpu, source, pairs } = this.ctx;
    if (!source) throw new Error('DataParallel device 0 has no data source');
    const B = mb.count;
    const endData = this.ctx.tracer.begin('data', 'data');
    const batch = source.trainBatch(mb.start, B);
    endData();
    const sizes = this.chunks(B, this.ctx.world, this.ctx.config);
    const per = numel(trainer.spec.input);
    const K = trainer.spec.classes;
    const offs = sizes.map((_, r) => sizes.slice(0, r).reduce((a, b) => a + b, 0));
    const replicas = [...pairs.keys()].sort((a, b) => a - b);
    const active = replicas.filter((r) => (sizes[r] ?? 0) > 0);
    // Parameters and chunks out to the replicas (torch: replicate + scatter).
    const params = active.length > 0 ? await this.outgoing() : null;
    const send = Promise.all(
      replicas.map(async (r) => {
        const pg = pairs.get(r);
        if (!pg) return;
        const e = encodeBatch(batch, offs[r] ?? 0, sizes[r] ?? 0, more);
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
      rec.copy(this.input.x, 0, trainer.model.x, 0, n0 * per * 4);
      rec.phase('forward');
      for (const op of plan0.forward) rec.dispatch(op);
      rec.copy(trainer.model.logits, 0, this.loss.logits, 0, n0 * K * 4);
    }
    rec.submit();
    await this.ctx.comm(() => send, 'scatter');
    // Gather every replica's outputs, loss over the whole batch, output gradients back out.
    await this.ctx.comm(
      () =>
        Promise.all(
          active.map(async (r) => {
            const l = await pairRecv(pairs.get(r)!, (sizes[r] ?? 0) * K, true, r);
            up.write(this.loss.logits, (offs[r] ?? 0) * K * 4, l, 'communication', 'dp.gathered_logits');
          }),
        ),
      'gather logits',
    );
    rec = new Recorder(gpu, 'dp.loss_backward');
    ops.b.setParams({ scale: (this.fp16?.scaler.scale ?? 1) / (B * accum) });
    rec.dispatch(ops.f);
    rec.dispatch(ops.b);
    const statsBuf = trainer.copyStatsFrom(rec, this.loss.stats);
    this.dlogitsReadback.record(rec, this.loss.dlogits, 0, B * K);
    if (plan0) {
      rec.copy(this.loss.dlogits, 0, trainer.model.dlogits, 0, n0 * K * 4);
      trainer.recordBackward(rec, plan0, undefined, false);
    }
    rec.submit();
    const stats = await this.ctx.tracer.span('readback stats', 'step', () => trainer.readStats(statsBuf, B));
    const dl = await this.ctx.tracer.span('readback dlogits', 'step', () => this.dlogitsReadback.read(B * K));
    await this.ctx.comm(
      () =>
        Promise.all(
          active.map((r) =>
            pairSend(pairs.get(r)!, dl.subarray((offs[r] ?? 0) * K, ((offs[r] ?? 0) + (sizes[r] ?? 0)) * K), true, r),
          ),
        ),
      'send dlogits',
    );
    // Reduce-add the replicas' gradients into device 0's, in rank order.
    const P = trainer.spec.total;
    for (const r of active) {
      const n = this.fp16 ? Math.ceil(P / 2) : P;
      const g = await this.ctx.comm(() => pairRecv(pairs.get(r)!, n, true, r), `gather grads ${r}`);
      // writeBuffer, not the upload pool: the W-1 writes would each hold a staging buffer the
      // size of the model in flight at once, memory that device 0 under DataParallel does not need.
      // fp16: the replica's halves, widened exactly.
      writeFloats(gpu, this.reduceBuffer, 0, this.fp16 ? unpackHalves(new Uint32Array(g.buffer), P) : g);
      rec = new Recorder(gpu, 'dp.reduce_add');
      rec.dispatch(this.addOp);
      rec.submit();
    }
    return stats;
  }

  private async opsFor(B: number): Promise<{ f: Op; b: Op<'softmax_xent_backward'>; normalize: Op }> {
    let o = this.lossOps.get(B);
    if (!o) {
      const { gpu, trainer } = this.ctx;
      const K = trainer.spec.classes;
      const normalize = await normalizeOp(gpu, trainer.spec, 'dp.batch.normalize', this.input, B);
      o = { f: await lossForward(gpu, this.loss, B, K), b: await lossBackward(gpu, this.loss, B, K), normalize };
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
    this.fp16?.half.destroy();
    for (const b of [
      this.input.bytes,
      this.input.x,
      this.loss.logits,
      this.loss.labels,
      this.loss.dlogits,
      this.loss.stats,
      this.reduceBuffer,
    ])
      m.destroy(b);
    this.dlogitsReadback.destroy();
  }
}
