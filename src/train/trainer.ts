// One device's training engine, the facade the modes, the runtime and the benchmarks use: its
// parts (trainer-parts.ts), the batch upload (batch-upload.ts) and the step. A training step is recorded into one encoder, in the order it runs (upload ->
// normalise -> forward -> loss -> backward -> clip -> optimizer -> zero grads: recordForward,
// recordBackward, recordUpdate) and submitted once; only the loss and accuracy come back
// (step-stats.ts). The distributed modes' steps record the same pieces with communication in
// between (Trainer.forward's Pass, bucketed.ts, partitioned.ts, layerwise.ts, replica-io.ts, gathered-loss.ts);
// the arenas' reads and writes are arena-io.ts.
import type { Batch } from '../data/batch.ts';
import type { Gpu } from '../gpu/device.ts';
import { Recorder, type DispatchGate } from '../gpu/recorder.ts';
import type { Timer } from '../gpu/timer.ts';
import { Model, type StepPlan } from '../nn/model.ts';
import type { ModelSpec, ParamSpec } from '../nn/spec.ts';
import { GradClipper } from '../optim/clip.ts';
import type { Optimizer } from '../optim/optimizer.ts';
import * as io from './arena-io.ts';
import type { HalfFormat } from './half-format.ts';
import { Fp32Master } from './master.ts';
import { Pass } from './pass.ts';
import { StepStatsReadback } from './step-stats.ts';
import type { StepOptions, StepResult, TrainerOptions } from './trainer-options.ts';
import { buildTrainerParts, type TrainerParts } from './trainer-parts.ts';
import { recordBatch, uploadBatch } from './batch-upload.ts';

export type { GradientLayout, StepOptions, StepResult, TrainerOptions } from './trainer-options.ts';

export class Trainer {
  private readonly stats: StepStatsReadback;

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
    this.stats = new StepStatsReadback(gpu, clipper);
  }

  static async create(gpu: Gpu, o: TrainerOptions): Promise<Trainer> {
    const p = await buildTrainerParts(gpu, o);
    return new Trainer(
      gpu,
      o.spec,
      p.params,
      p.grads,
      p.model,
      p.optimizer,
      p.clipper,
      p.shardGrads,
      p.gradOffset,
      p.shardOffset,
      p.master,
      p.halfFormat,
    );
  }

  /** arena-io.ts's setParams: every parameter (fp16: the halves and the master). */
  setParams(flat: Float32Array): void {
    io.setParams(this, flat);
  }
  /** arena-io.ts's setHalves: every parameter from packed halves as sent; not a master. */
  setHalves(words: Uint32Array): void {
    io.setHalves(this, words);
  }
  /** fp16: the parameters as the layers hold them, packed halves. */
  readHalves(): Promise<Uint32Array> {
    return io.readHalves(this);
  }
  /** The parameters the layers use (fp16: the halves' values). */
  readParams(): Promise<Float32Array<ArrayBuffer>> {
    return io.readParams(this);
  }
  /** Writes `data` (e.g. an all-reduced bucket) into the gradient arena from element `offset`. */
  writeGrads(offset: number, data: Float32Array, label: string): void {
    io.writeGrads(this, offset, data, label);
  }
  /** Writes this rank's reduced gradient slice where its optimizer reads it (ZeRO after reduce-scatter). */
  writeShardGrads(data: Float32Array): void {
    io.writeShardGrads(this, data);
  }
  readGrads(): Promise<Float32Array<ArrayBuffer>> {
    return io.readGrads(this);
  }
  readLogits(batch: number): Promise<Float32Array<ArrayBuffer>> {
    return io.readLogits(this, batch);
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

  /** upload() as the first work of `rec` (recordBatch: no submit of its own). */
  private async uploadInto(b: Batch, rec: Recorder): Promise<StepPlan> {
    const end = this.gpu.tracer.begin('upload', 'data');
    try {
      return await recordBatch(this.gpu, this.model, b, rec);
    } finally {
      end();
    }
  }

  /**
   * One micro-batch of a step in parts (the distributed modes): uploads `b`, records its forward,
   * the loss and the stats copy into a new recording (`label`); the loss gradient carries
   * `lossScale`. The Pass then records the backward (or a bucketed backward does).
   */
  async forward(b: Batch, lossScale: number, label: string): Promise<Pass> {
    const rec = new Recorder(this.gpu, label);
    const plan = await this.uploadInto(b, rec);
    plan.lossBackward.setParams({ scale: lossScale });
    this.recordForward(rec, plan, 'images' in b);
    return new Pass(this, rec, plan, this.copyStats(rec));
  }

  /** recordForward below: normalisation (byte batches), forward and the loss. */
  recordForward(rec: Recorder, plan: StepPlan, bytes: boolean): void {
    recordForward(rec, plan, bytes);
  }
  /** recordBackward below: the loss gradient (unless `withLoss` is false) and the backward. */
  recordBackward(
    rec: Recorder,
    plan: StepPlan,
    onSegment?: (segment: StepPlan['backward'][number]) => void,
    withLoss = true,
  ): void {
    recordBackward(rec, plan, onSegment, withLoss);
  }
  /** Records clipping (if on), the optimizer step (if this device has one) and the zeroing of the gradients. */
  recordUpdate(rec: Recorder, lr?: number): void {
    recordUpdate(rec, this, lr);
  }
  /** recordGatedUpdate below: the update whose steps the GPU takes or skips (`gate`). */
  recordGatedUpdate(rec: Recorder, gate: DispatchGate): void {
    recordGatedUpdate(rec, this, gate);
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
    const rec = new Recorder(this.gpu, 'train_step', opts.timer ?? null, opts.profile ?? false);
    const plan = await this.uploadInto(b, rec);
    this.recordForward(rec, plan, 'images' in b);
    this.recordBackward(rec, plan);
    const update = opts.update !== false;
    if (update) this.recordUpdate(rec, opts.lr);
    return { result: this.finish(rec, plan.batch, opts.timer, update) };
  }

  /** Forward only (evaluation): loss and correct count of the batch. */
  async evaluate(b: Batch): Promise<StepResult> {
    const rec = new Recorder(this.gpu, 'eval_step');
    const plan = await this.uploadInto(b, rec);
    this.recordForward(rec, plan, 'images' in b);
    return this.finish(rec, plan.batch, undefined, false);
  }

  /** Copies the stats (and clip norm) to staging, submits, and reads them back. */
  finish(rec: Recorder, batch: number, timer?: Timer, withNorm = true): Promise<StepResult> {
    return this.stats.finish(rec, this.model.stats, batch, timer, withNorm);
  }
  /**
   * Records a copy of the loss stats into a staging buffer for readStats(), with the clip norm
   * when `withNorm` (only when this recording clips: otherwise the norm would be a stale one).
   */
  copyStats(rec: Recorder, withNorm = false): GPUBuffer {
    return this.stats.copy(rec, this.model.stats, withNorm);
  }
  /** copyStats from another stats buffer (DataParallel's loss over the gathered batch). */
  copyStatsFrom(rec: Recorder, stats: GPUBuffer, withNorm = false): GPUBuffer {
    return this.stats.copy(rec, stats, withNorm);
  }
  /** readStats() with the words a recording copied in after the stats (StepStatsReadback.readWithExtra). */
  readStatsWithExtra(buf: GPUBuffer, batch: number): Promise<{ result: StepResult; extra: Uint32Array }> {
    return this.stats.readWithExtra(buf, batch);
  }
  /** Reads a copyStats() buffer once the work recording it has been submitted. */
  readStats(buf: GPUBuffer, batch: number): Promise<StepResult> {
    return this.stats.read(buf, batch);
  }

  destroy(): void {
    this.stats.destroy();
    this.clipper?.destroy();
    this.optimizer?.destroy();
    this.master?.destroy();
    if (this.shardGrads) this.gpu.memory.destroy(this.shardGrads);
    this.model.destroy();
    this.gpu.memory.destroy(this.params);
    this.gpu.memory.destroy(this.grads);
  }
}

// A step's phases, recorded in the order a step runs them.

/** Records input normalisation (for byte batches), forward and the loss. */
export function recordForward(rec: Recorder, plan: StepPlan, bytes: boolean): void {
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
export function recordBackward(
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
export function recordUpdate(
  rec: Recorder,
  t: Pick<TrainerParts, 'clipper' | 'optimizer' | 'master' | 'grads'>,
  lr?: number,
): void {
  rec.phase('optimizer');
  t.clipper?.record(rec);
  t.optimizer?.record(rec, lr);
  if (t.optimizer) t.master?.recordCast(rec);
  rec.clear(t.grads);
}

/**
 * recordUpdate where the GPU decides whether the step is taken (fp16's loss scaler on the GPU):
 * clipping, the optimizer (its Params for the step chosen on the GPU: Optimizer.stepParams) and the
 * master's cast are dispatched through `gate`; the gradients are zeroed either way, as a skipped
 * step's are.
 */
export function recordGatedUpdate(
  rec: Recorder,
  t: Pick<TrainerParts, 'clipper' | 'optimizer' | 'master' | 'grads'>,
  gate: DispatchGate,
): void {
  rec.phase('optimizer');
  rec.gated(gate, () => {
    t.clipper?.record(rec);
    t.optimizer?.recordDispatch(rec);
    if (t.optimizer) t.master?.recordCast(rec);
  });
  rec.clear(t.grads);
}
