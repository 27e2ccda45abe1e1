// One device's training engine: the flat parameter and gradient arenas, SimpleCNN's plans, the
// optimizer and optional gradient clipping. A training step is recorded into one encoder
// (upload -> normalise -> forward -> loss -> backward -> clip -> optimizer -> zero grads) and
// submitted once; only the loss and accuracy come back. Distributed modes reuse the pieces
// (recordForward / recordBackward / optimizer) with communication in between.
import type { Batch } from '../data/batch.ts';
import { readBuffer, readFloats, storageBuffer, writeFloats } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import { Recorder } from '../gpu/recorder.ts';
import { StagingPool } from '../gpu/staging.ts';
import type { Timer } from '../gpu/timer.ts';
import { tuningFor } from '../gpu/tuning.ts';
import { Model, type StepPlan } from '../nn/model.ts';
import type { ModelSpec, ParamSpec } from '../nn/spec.ts';
import { GradClipper } from '../optim/clip.ts';
import { uploadBatch } from './batch-upload.ts';
import { HALF_CODECS, type HalfFormat } from './half-format.ts';
import { Fp32Master } from './master.ts';
import { createOptimizer, type Optimizer } from '../optim/optimizer.ts';
import type { StepOptions, StepResult, TrainerOptions } from './trainer-options.ts';

export type { GradientLayout, StepOptions, StepResult, TrainerOptions } from './trainer-options.ts';

export class Trainer {
  private readonly staging: StagingPool;

  private constructor(
    readonly gpu: Gpu,
    readonly spec: ModelSpec,
    readonly params: GPUBuffer,
    readonly grads: GPUBuffer,
    readonly model: Model,
    readonly optimizer: Optimizer | null,
    readonly clipper: GradClipper | null,
    /** The optimizer's own reduced gradient slice (shard.ownGradients), else null. */
    readonly shardGrads: GPUBuffer | null,
    /** Element offset in `grads` of each parameter's gradient. */
    readonly gradOffset: (p: ParamSpec) => number,
    /** First element of the slice this device's optimizer updates. */
    readonly shardOffset: number,
    /** fp16: the float32 master copy of the optimizer's slice; else null (the optimizer updates `params`). */
    readonly master: Fp32Master | null,
    /** `params` holds packed 16-bit pairs of this format (fp16 / bf16 mixed precision); null: float32. */
    readonly halfFormat: HalfFormat | null,
  ) {
    this.staging = new StagingPool(gpu, 'step.readback', 32);
  }

  static async create(gpu: Gpu, o: TrainerOptions): Promise<Trainer> {
    const tuning = o.tuning ?? tuningFor(gpu.adapter);
    gpu.kernels.tuning = tuning.kernels;
    const shard = o.shard ?? { offset: 0, count: o.spec.total };
    const pl = o.parameterLayout;
    const format: HalfFormat | null = o.bf16 === true ? 'bf16' : o.fp16 === true ? 'f16' : null;
    const params = format
      ? storageBuffer(
          gpu,
          `${pl?.label ?? 'params'}.${HALF_CODECS[format].name}`,
          Math.ceil((pl?.size ?? o.spec.total) / 2) * 4,
          'parameters',
        )
      : storageBuffer(gpu, pl?.label ?? 'params', (pl?.size ?? o.spec.total) * 4, 'parameters');
    // only where an optimizer steps (not DataParallel's replicas; ZeRO-3's runner keeps its own)
    const master =
      format && o.optimizer !== null ? await Fp32Master.create(gpu, params, shard.offset, shard.count, format) : null;
    const layout = o.gradientLayout ?? { label: 'grads', size: o.spec.total, offset: (p: ParamSpec) => p.offset };
    const grads = storageBuffer(gpu, layout.label, layout.size * 4, 'gradients');
    const shardGrads = o.shard?.ownGradients ? storageBuffer(gpu, 'grads.shard', shard.count * 4, 'gradients') : null;
    const halfActs = o.halfActivations ?? format === 'f16';
    const model = new Model(
      gpu,
      o.spec,
      o.maxBatch,
      params,
      grads,
      tuning,
      layout.offset,
      pl?.offset,
      format ?? 'f32',
      halfActs,
    );
    const optimizer =
      o.optimizer === null
        ? null
        : await createOptimizer(gpu, o.optimizer, {
            params: master?.buffer ?? params,
            grads: shardGrads ?? grads,
            paramOffset: master ? 0 : shard.offset,
            gradOffset: shardGrads ? 0 : shard.offset,
            count: shard.count,
          });
    const clipper =
      o.clipGradNorm && !o.shard
        ? await GradClipper.create(gpu, grads, 0, o.spec.total, o.clipGradNorm, tuning.normWorkgroups)
        : null;
    const { offset } = shard;
    return new Trainer(
      gpu,
      o.spec,
      params,
      grads,
      model,
      optimizer,
      clipper,
      shardGrads,
      layout.offset,
      offset,
      master,
      format,
    );
  }

  /**
   * Sets every parameter. fp16: the layers' halves are `flat` rounded to fp16, and the master slice
   * their values (DeepSpeed halves the module first, then copies its fp32 master from the halves).
   */
  setParams(flat: Float32Array): void {
    this.assertFullParams();
    if (flat.length !== this.spec.total) throw new Error(`expected ${this.spec.total} parameters, got ${flat.length}`);
    const codec = this.halfFormat ? HALF_CODECS[this.halfFormat] : null;
    const halves = codec ? codec.pack(flat) : null;
    writeFloats(this.gpu, this.params, 0, halves ?? flat);
    if (codec && halves) this.master?.write(codec.unpack(halves, flat.length));
  }

  /** fp16: sets every parameter from packed halves (DataParallel's replicas: device 0's halves as sent); not a master. */
  setHalves(words: Uint32Array): void {
    this.assertFullParams();
    if (!this.halfFormat || words.byteLength !== this.params.size)
      throw new Error(`expected ${this.params.size / 4} words of fp16 parameters, got ${words.length}`);
    writeFloats(this.gpu, this.params, 0, words);
  }

  /** fp16: the parameters as the layers hold them, packed halves. */
  async readHalves(): Promise<Uint32Array> {
    this.assertFullParams();
    if (!this.halfFormat) throw new Error('this trainer does not hold 16-bit parameters');
    return new Uint32Array(await readBuffer(this.gpu, this.params));
  }

  /** Writes `data` (e.g. an all-reduced bucket) into the gradient arena from element `offset`. */
  writeGrads(offset: number, data: Float32Array, label: string): void {
    this.gpu.uploads.write(this.grads, offset * 4, data, 'communication', label);
  }

  /** Writes this rank's reduced gradient slice where its optimizer reads it (ZeRO after reduce-scatter). */
  writeShardGrads(data: Float32Array): void {
    if (this.shardGrads) this.gpu.uploads.write(this.shardGrads, 0, data, 'communication', 'grads.shard');
    else this.writeGrads(this.shardOffset, data, 'grads.shard');
  }

  /** Throws when the parameters are not a full arena here (ZeRO-3: the mode's runner holds them). */
  private assertFullParams(): void {
    if (this.params.size !== (this.halfFormat ? Math.ceil(this.spec.total / 2) : this.spec.total) * 4)
      throw new Error(
        `this trainer holds a ${this.params.label} of ${this.params.size / 4} elements, not the parameters`,
      );
  }

  /** The parameters the layers use (fp16: the halves' values, as a DeepSpeed fp16 module's state_dict holds). */
  async readParams(): Promise<Float32Array<ArrayBuffer>> {
    this.assertFullParams();
    if (!this.halfFormat) return readFloats(this.gpu, this.params, 0, this.spec.total);
    const codec = HALF_CODECS[this.halfFormat];
    return codec.unpack(await this.readHalves(), this.spec.total) as Float32Array<ArrayBuffer>;
  }

  readGrads(): Promise<Float32Array<ArrayBuffer>> {
    return readFloats(this.gpu, this.grads, 0, this.spec.total);
  }
  readLogits(batch: number): Promise<Float32Array<ArrayBuffer>> {
    return readFloats(this.gpu, this.model.logits, 0, batch * this.spec.classes);
  }

  /** Writes the batch into the input buffers and returns its plan. */
  async upload(b: Batch): Promise<StepPlan> {
    const end = this.gpu.tracer.begin('upload', 'data');
    try {
      return await uploadBatch(this.gpu, this.model, b);
    } finally {
      end();
    }
  }

  /** Records input normalisation (for byte batches), forward and the loss. */
  recordForward(rec: Recorder, plan: StepPlan, bytes: boolean): void {
    rec.phase('forward');
    if (bytes) rec.dispatch(plan.normalize);
    rec.layer('normalize');
    for (const op of plan.forward) {
      rec.dispatch(op);
      rec.layer(op.label);
    }
    rec.dispatch(plan.lossForward);
    rec.layer('loss');
  }

  /**
   * Records the loss gradient (unless `withLoss` is false: DataParallel writes dlogits from device
   * 0's loss over the gathered batch) and the backward; `onSegment` runs after each layer.
   */
  recordBackward(
    rec: Recorder,
    plan: StepPlan,
    onSegment?: (segment: StepPlan['backward'][number]) => void,
    withLoss = true,
  ): void {
    rec.phase('backward');
    if (withLoss) rec.dispatch(plan.lossBackward);
    rec.layer('loss.backward');
    for (const s of plan.backward) {
      for (const op of s.ops) rec.dispatch(op);
      rec.layer(`${s.layer}.backward`);
      onSegment?.(s);
    }
  }

  /** Records clipping (if on), the optimizer step (if this device has one) and the zeroing of the gradients. */
  recordUpdate(rec: Recorder, lr?: number): void {
    rec.phase('optimizer');
    this.clipper?.record(rec);
    this.optimizer?.record(rec, lr);
    if (this.optimizer) this.master?.recordCast(rec);
    rec.clear(this.grads);
  }

  /**
   * One step on one device: forward, backward and (unless `update` is false, e.g. inside
   * gradient accumulation) the optimizer. One submit; awaits only the loss readback.
   */
  async step(b: Batch, opts: StepOptions = {}): Promise<StepResult> {
    return (await this.submitStep(b, opts)).result;
  }

  /**
   * step() in two halves: settles once the step's work is submitted, with the promise of its
   * result. A caller may submit step k+1 before awaiting step k's result (pipelined: the GPU
   * queue runs them in order), never before step k is submitted (uploads share the input buffers).
   */
  async submitStep(b: Batch, opts: StepOptions = {}): Promise<{ result: Promise<StepResult> }> {
    const plan = await this.upload(b);
    const rec = new Recorder(this.gpu, 'train_step', opts.timer ?? null, opts.profile ?? false);
    this.recordForward(rec, plan, 'images' in b);
    this.recordBackward(rec, plan);
    const update = opts.update !== false;
    if (update) this.recordUpdate(rec, opts.lr);
    return { result: this.finish(rec, plan.batch, opts.timer, update) };
  }

  /** Forward only (evaluation): loss and correct count of the batch. */
  async evaluate(b: Batch): Promise<StepResult> {
    const plan = await this.upload(b);
    const rec = new Recorder(this.gpu, 'eval_step');
    this.recordForward(rec, plan, 'images' in b);
    return this.finish(rec, plan.batch, undefined, false);
  }

  /** Copies the stats (and clip norm) to staging, submits, and reads them back. */
  async finish(rec: Recorder, batch: number, timer?: Timer, withNorm = true): Promise<StepResult> {
    const buf = this.copyStats(rec, withNorm);
    rec.submit();
    const [r, gpuMs] = await Promise.all([this.readStats(buf, batch), timer?.read()]);
    return gpuMs ? { ...r, gpuMs } : r;
  }

  /**
   * Records a copy of the loss stats into a staging buffer for readStats(), with the clip norm
   * when `withNorm` (only when this recording clips: otherwise the norm would be a stale one).
   */
  copyStats(rec: Recorder, withNorm = false): GPUBuffer {
    return this.copyStatsFrom(rec, this.model.stats, withNorm);
  }

  /** copyStats from another stats buffer (DataParallel's loss over the gathered batch). */
  copyStatsFrom(rec: Recorder, stats: GPUBuffer, withNorm = false): GPUBuffer {
    const buf = this.staging.take();
    rec.copy(stats, 0, buf, 0, 16);
    if (this.clipper && withNorm) rec.copy(this.clipper.out, 0, buf, 16, 16);
    else rec.clear(buf, 16, 16);
    return buf;
  }

  /** Reads a copyStats() buffer once the work recording it has been submitted. */
  async readStats(buf: GPUBuffer, batch: number): Promise<StepResult> {
    const f = new Float32Array(await this.staging.read(buf));
    return {
      batch,
      loss: f[0] ?? NaN,
      correct: f[1] ?? 0,
      ...(this.clipper && f[4] !== 0 ? { gradNorm: f[4] ?? NaN } : {}),
    };
  }

  destroy(): void {
    this.staging.destroy();
    this.clipper?.destroy();
    this.optimizer?.destroy();
    this.master?.destroy();
    if (this.shardGrads) this.gpu.memory.destroy(this.shardGrads);
    this.model.destroy();
    this.gpu.memory.destroy(this.params);
    this.gpu.memory.destroy(this.grads);
  }
}
