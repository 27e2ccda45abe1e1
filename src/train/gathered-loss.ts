// The device side of DataParallel's device 0: the whole batch on one device, its own chunk
// through the model, the loss over every replica's outputs gathered from the host, the output
// gradients back to the host, the replicas' parameter gradients added into its own (x_0 + x_1 +
// ... in rank order) and the one optimizer step (fp16: the sum packed into halves, checked for
// inf/NaN and unscaled first, as DDP fp16 on one worker).
import { storageBuffer, writeFloats } from '../gpu/buffers.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import { Readback } from '../gpu/readback.ts';
import { Recorder } from '../gpu/recorder.ts';
import type { Batch } from '../data/batch.ts';
import { numel } from '../nn/layer.ts';
import { lossBackward, lossForward, type LossBuffers } from '../nn/loss.ts';
import { normalizeOp, type StepPlan } from '../nn/model.ts';
import { unpackHalves } from '../numeric/f16.ts';
import { HalfGradients } from './half-grads.ts';
import type { Trainer } from './trainer.ts';
import type { StepResult } from './trainer-options.ts';

interface LossOps {
  readonly f: Op;
  readonly b: Op<'softmax_xent_backward'>;
  readonly normalize: Op;
}

export class GatheredLoss {
  private readonly lossOps = new Map<number, LossOps>();
  /** The micro-batch between forward() and lossBackward(): its size, ops and device 0's own plan. */
  private current: { readonly n: number; readonly ops: LossOps; readonly plan0: StepPlan | null } | null = null;
  /** Samples of the last lossBackward. */
  private gathered = 0;

  private constructor(
    private readonly trainer: Trainer,
    /** The whole batch on device 0: bytes, normalised floats, gathered logits/labels/dlogits. */
    private readonly input: { bytes: GPUBuffer; x: GPUBuffer },
    private readonly loss: LossBuffers,
    private readonly dlogitsReadback: Readback,
    private readonly reduceBuffer: GPUBuffer,
    private readonly addOp: Op,
    /** fp16: the gradient halves of the step's sum (overflow check, unscale). */
    private readonly half: HalfGradients | null,
  ) {}

  /** For global batches of up to `maxBatch`; `halves`: the replicas' gradients arrive as packed halves. */
  static async create(trainer: Trainer, maxBatch: number, halves: boolean): Promise<GatheredLoss> {
    const { gpu } = trainer;
    const B = maxBatch;
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
    const half = halves
      ? await HalfGradients.create(gpu, trainer.grads, [{ offset: 0, count: trainer.spec.total }])
      : null;
    return new GatheredLoss(trainer, input, loss, dlogitsReadback, reduceBuffer, addOp, half);
  }

  /** Uploads the whole `batch` and submits the forward of its first `n0` samples (device 0's chunk). */
  async forward(batch: Batch, n0: number): Promise<void> {
    const { trainer } = this;
    const { gpu } = trainer;
    const n = batch.labels.length;
    const ops = await this.opsFor(n);
    const up = gpu.uploads;
    if ('images' in batch) up.write(this.input.bytes, 0, batch.images, 'other', 'dp.input.bytes');
    else up.write(this.input.x, 0, batch.x, 'other', 'dp.input.x');
    up.write(this.loss.labels, 0, batch.labels, 'other', 'dp.input.labels');
    const plan0 = n0 > 0 ? await trainer.model.plan(n0) : null;
    const rec = new Recorder(gpu, 'dp.forward');
    if ('images' in batch) rec.dispatch(ops.normalize);
    if (plan0) {
      rec.copy(this.input.x, 0, trainer.model.x, 0, n0 * numel(trainer.spec.input) * 4);
      rec.phase('forward');
      for (const op of plan0.forward) rec.dispatch(op);
      rec.copy(trainer.model.logits, 0, this.loss.logits, 0, n0 * trainer.spec.classes * 4);
    }
    rec.submit();
    this.current = { n, ops, plan0 };
  }

  /** Writes a replica's outputs at sample `offset` of the gathered outputs. */
  setOutputs(offset: number, logits: Float32Array): void {
    const K = this.trainer.spec.classes;
    this.trainer.gpu.uploads.write(this.loss.logits, offset * K * 4, logits, 'communication', 'dp.gathered_logits');
  }

  /**
   * The loss over the gathered outputs (its gradient times `scale`) and device 0's own backward
   * from its chunk of the output gradients, submitted; returns the loss and correct count read
   * back. outputGradients() then reads every output gradient.
   */
  lossBackward(scale: number): Promise<StepResult> {
    const { trainer, current } = this;
    if (!current) throw new Error('GatheredLoss.lossBackward before forward');
    const { n, ops, plan0 } = current;
    const K = trainer.spec.classes;
    const rec = new Recorder(trainer.gpu, 'dp.loss_backward');
    ops.b.setParams({ scale });
    rec.dispatch(ops.f);
    rec.dispatch(ops.b);
    const statsBuf = trainer.copyStatsFrom(rec, this.loss.stats);
    this.dlogitsReadback.record(rec, this.loss.dlogits, 0, n * K);
    if (plan0) {
      rec.copy(this.loss.dlogits, 0, trainer.model.dlogits, 0, plan0.batch * K * 4);
      trainer.recordBackward(rec, plan0, undefined, false);
    }
    rec.submit();
    this.current = null;
    this.gathered = n;
    return trainer.gpu.tracer.span('readback stats', 'step', () => trainer.readStats(statsBuf, n));
  }

  /** The output gradients of the whole batch (after lossBackward), to go to the replicas. */
  outputGradients(): Promise<Float32Array> {
    const n = this.gathered * this.trainer.spec.classes;
    return this.trainer.gpu.tracer.span('readback dlogits', 'step', () => this.dlogitsReadback.read(n));
  }

  /** Adds a replica's gradients (fp16: its packed halves, widened exactly) into device 0's. */
  addGradients(g: Float32Array): void {
    const { gpu, spec } = this.trainer;
    // writeBuffer, not the upload pool: the W-1 writes would each hold a staging buffer the
    // size of the model in flight at once, memory that device 0 under DataParallel does not need.
    writeFloats(gpu, this.reduceBuffer, 0, this.half ? unpackHalves(new Uint32Array(g.buffer), spec.total) : g);
    const rec = new Recorder(gpu, 'dp.reduce_add');
    rec.dispatch(this.addOp);
    rec.submit();
  }

  /**
   * The one optimizer step. fp16: the summed gradients packed into halves, checked and unscaled
   * by `lossScale` first; `decide(overflow)` says whether to skip (the gradients are then cleared).
   */
  async update<T extends { readonly skipped: boolean }>(
    lr: number,
    fp16?: { readonly lossScale: number; readonly decide: (overflow: boolean) => T },
  ): Promise<T | undefined> {
    const { trainer, half } = this;
    const { gpu } = trainer;
    let info: T | undefined;
    if (half && fp16) {
      const check = new Recorder(gpu, 'dp.fp16.unscale');
      half.recordPack(check, 0);
      half.recordUnscale(check, fp16.lossScale);
      check.submit();
      info = fp16.decide(await half.readOverflow());
    }
    const rec = new Recorder(gpu, 'dp.update');
    if (info?.skipped) rec.clear(trainer.grads);
    else trainer.recordUpdate(rec, lr);
    rec.submit();
    return info;
  }

  private async opsFor(B: number): Promise<LossOps> {
    let o = this.lossOps.get(B);
    if (!o) {
      const { gpu, spec } = this.trainer;
      const K = spec.classes;
      const normalize = await normalizeOp(gpu, spec, 'dp.batch.normalize', this.input, B);
      o = { f: await lossForward(gpu, this.loss, B, K), b: await lossBackward(gpu, this.loss, B, K), normalize };
      this.lossOps.set(B, o);
    }
    return o;
  }

  destroy(): void {
    const m = this.trainer.gpu.memory;
    for (const o of this.lossOps.values()) {
      o.f.destroy();
      o.b.destroy();
      o.normalize.destroy();
    }
    this.addOp.destroy();
    this.half?.destroy();
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
