// A ZeRO step (stages 1 and 2). Rank r keeps optimizer state only for its contiguous partition of
// the flat arena (zeroPartition). Gradients are pre-divided by W and reduce-scattered, so rank r
// holds the averaged gradient of its partition; it updates only that partition; the parameters
// are all-gathered. Stage 1 still holds a full gradient arena. Stage 2 does not: backward writes
// into one bounded bucket (bucketLayout: a layer, or a 15-row piece of fc1; 61,455 floats at
// width 1), which is pre-divided, read back and cleared after each layer or piece
// (grad-bucket.ts); the rank's device gradients are that bucket plus its reduced partition:
// 240 KiB + P/W, against P for DDP (2.18 MB at width 1).
// Clipping uses the global norm (partition norms all-reduced).
// fp16 (DeepSpeed's fp16 with ZeRO): the loss gradient is multiplied by the loss scale; the summed
// gradients are cast to halves and reduce-scattered as halves (half the bytes), each rank checks
// its partition for inf/NaN and the ranks agree on the flag (DeepSpeed all-reduces it); an
// overflowing step is skipped, else the partition is unscaled into float32, the rank's fp32 master
// steps, and the fp16 parameters (halves) are all-gathered.
import { bufferFrom } from '../../gpu/buffers.ts';
import { grid1d, makeOp, type Op } from '../../gpu/op.ts';
import { Readback } from '../../gpu/readback.ts';
import { Recorder } from '../../gpu/recorder.ts';
import type { StepPlan } from '../../nn/model.ts';
import type { Range } from '../../comm/ring-schedule.ts';
import { StatsSum, type MicroBatch, type ModeContext, type ModeRunner, type StepStats } from '../mode.ts';
import { clipPartition } from './clip-partition.ts';
import { GradientBucket } from './grad-bucket.ts';
import { layerRanges, zeroPartition, type LayerRange } from './layout.ts';
import { PieceCache } from './piece-cache.ts';
import { halvesView } from '../../comm/collectives.ts';
import type { LossScaler } from '../../optim/loss-scaler.ts';
import { halvesOverflow } from '../../numeric/f16.ts';
import { HALF_CODECS, type HalfFormat } from '../../train/half-format.ts';
import { lossScalerOf, scalerStep, type Fp16StepInfo } from '../fp16.ts';

/** Stage 2's bounded gradient path. */
interface Stage2 {
  readonly bucket: GradientBucket;
  readonly pieces: PieceCache;
  readonly layers: ReadonlyMap<string, LayerRange>;
}

/** The ops of a layer's whole weight gradient: the kernel, and the tiled kernel's reduce. */
const WHOLE_WEIGHT_GRAD = /\.backward_weight(_reduce)?$/;
export class ZeroRunner implements ModeRunner {
  private host: Float32Array;
  private readonly grads: Float32Array;
  /**
   * fp16 or bf16: the format's codec, the loss scaler (fp16 only) and the host's packed 16-bit
   * parameters (all-gathered every step); null: float32.
   */
  private readonly fp16: {
    readonly format: HalfFormat;
    readonly scaler: LossScaler | null;
    readonly words: Uint32Array;
  } | null;

  private constructor(
    private readonly ctx: ModeContext,
    private readonly part: Range,
    private readonly factor: GPUBuffer,
    private readonly gradReadback: Readback | null,
    private readonly paramReadback: Readback,
    /** Stage 1: one prescale of the whole arena; stage 2: null (per bucket instead). */
    private readonly fullScale: Op | null,
    private readonly stage2: Stage2 | null,
  ) {
    this.host = new Float32Array(ctx.trainer.spec.total);
    this.grads = stage2?.bucket.host ?? new Float32Array(ctx.trainer.spec.total);
    const format = ctx.config.bf16 ? 'bf16' : ctx.config.fp16 ? 'f16' : null;
    this.fp16 = format
      ? {
          format,
          scaler: format === 'f16' ? lossScalerOf(ctx.config) : null,
          words: new Uint32Array(Math.ceil(ctx.trainer.spec.total / 2)),
        }
      : null;
  }

  static async create(ctx: ModeContext, stage: 1 | 2): Promise<ZeroRunner> {
    const { gpu, trainer, world, rank } = ctx;
    const P = trainer.spec.total;
    const factor = bufferFrom(gpu, 'zero.inv_world', Float32Array.of(1 / world), 'other');
    const k = await gpu.kernels.get('scale');
    const fullScale = makeOp(
      gpu,
      k,
      'zero.prescale',
      { count: P, offset: 0, factor_index: 0 },
      { factor, data: trainer.grads },
      grid1d(P, k.overrides.WG ?? 64),
    );
    const part = zeroPartition(rank, world, P, ctx.config.fp16 || ctx.config.bf16);
    const partWords =
      ctx.config.fp16 || ctx.config.bf16 ? Math.ceil((part.end - part.start) / 2) : part.end - part.start;
    const stage2 =
      stage === 2
        ? {
            bucket: new GradientBucket(gpu, trainer, world),
            pieces: new PieceCache(gpu, trainer, ctx.config.reduceBucketSize),
            layers: new Map(layerRanges(trainer.spec, ctx.config.reduceBucketSize).map((l) => [l.layer, l])),
          }
        : null;
    return new ZeroRunner(
      ctx,
      part,
      factor,
      stage === 1 ? new Readback(gpu, 'zero.grads.readback', P) : null,
      new Readback(gpu, 'zero.partition.readback', partWords),
      stage === 1 ? fullScale : (fullScale.destroy(), null),
      stage2,
    );
  }

  async syncInitial(): Promise<void> {
    const { trainer, pg } = this.ctx;
    this.host = await trainer.readParams();
    if (this.ctx.world > 1) await this.ctx.comm(() => pg.broadcast(this.host, 0), 'broadcast');
    trainer.setParams(this.host);
  }

  lossScaler(): LossScaler | null {
    return this.fp16?.scaler ?? null;
  }

  async syncParams(): Promise<void> {
    /* parameters are all-gathered every step */
  }

  async step(micro: readonly MicroBatch[], lr: number): Promise<StepStats> {
    const { trainer, source, gpu } = this.ctx;
    if (!source) throw new Error('ZeRO rank has no data source');
    const stats = new StatsSum();
    const lossScale = this.fp16?.scaler?.scale ?? 1;
    for (const [m, mb] of micro.entries()) {
      const endData = this.ctx.tracer.begin('data', 'data');
      const batch = source.trainBatch(mb.start, mb.count);
      endData();
      const plan = await trainer.upload(batch);
      plan.lossBackward.setParams({ scale: lossScale / (mb.count * micro.length) });
      const rec = new Recorder(gpu, 'zero.forward_backward');
      trainer.recordForward(rec, plan, 'images' in batch);
      const statsBuf = trainer.copyStats(rec);
      if (this.stage2) await this.backwardStage2(this.stage2, rec, plan, m === 0);
      else await this.backwardStage1(rec, plan, m === micro.length - 1);
      const r = await this.ctx.tracer.span('readback stats', 'step', () => trainer.readStats(statsBuf, mb.count));
      stats.add(r.loss, r.correct, mb.count);
    }
    if (this.fp16) {
      const info = await this.fp16Step(this.fp16, lr);
      return info ? { ...stats.value, fp16: info } : stats.value;
    }
    // Reduce-scatter the (pre-divided) gradients: this rank's partition, averaged over ranks.
    const { chunk } = await this.ctx.comm(() => this.ctx.pg.reduceScatter(this.grads), 'reduce-scatter');
    await this.update(chunk, lr);
    return stats.value;
  }

  /**
   * fp16: the gradients reduce-scattered as halves, the overflow agreed on, then the update unless
   * skipped. bf16: reduce-scattered as bfloat16 pairs, then the update (no loss scale: null).
   */
  private async fp16Step(f: NonNullable<ZeroRunner['fp16']>, lr: number): Promise<Fp16StepInfo | null> {
    const { pg } = this.ctx;
    const codec = HALF_CODECS[f.format];
    const words = codec.pack(this.grads);
    const packed = f.format === 'bf16' ? { bf16: true } : { halves: true };
    const r = await this.ctx.comm(() => pg.reduceScatter(halvesView(words), packed), 'reduce-scatter');
    const n = this.part.end - this.part.start;
    const mine = words.subarray(r.start, r.end);
    if (!f.scaler) {
      await this.update(codec.unpack(mine, n), lr);
      return null;
    }
    const local = halvesOverflow(mine, n) ? 1 : 0;
    const [ranks = 0] = await this.ctx.comm(() => pg.allReduceScalars([local]), 'all-reduce overflow');
    const info = scalerStep(f.scaler, ranks > 0);
    if (!info.skipped) await this.update(codec.unpack(mine, n, 1 / info.lossScale), lr);
    return info;
  }

  /** Clips (global norm) and steps this rank's partition from its reduced gradients, then all-gathers the parameters. */
  private async update(chunk: Float32Array, lr: number): Promise<void> {
    const { trainer, gpu, pg } = this.ctx;
    await clipPartition(this.ctx, chunk);
    trainer.writeShardGrads(chunk);
    // fp16: the partition's halves (cast from the master by recordUpdate), words from part.start / 2
    const half = this.fp16 ? 2 : 1;
    const n = Math.ceil((this.part.end - this.part.start) / half);
    const rec = new Recorder(gpu, 'zero.update');
    trainer.recordUpdate(rec, lr);
    if (n > 0) this.paramReadback.record(rec, trainer.params, this.part.start / half, n);
    rec.submit();
    const read = n > 0 ? await this.ctx.tracer.span('readback params', 'step', () => this.paramReadback.read(n)) : null;
    if (this.fp16) {
      const words = this.fp16.words;
      if (read) words.set(new Uint32Array(read.buffer, read.byteOffset, n), this.part.start / 2);
      await this.ctx.comm(() => pg.allGather(halvesView(words)), 'all-gather');
      trainer.master?.writeHalves(words);
      return;
    }
    if (read) this.host.set(read, this.part.start);
    await this.ctx.comm(() => pg.allGather(this.host), 'all-gather');
    trainer.setParams(this.host);
  }

  /** Stage 1: a full gradient arena; on the last micro-batch it is pre-divided and read back whole. */
  private async backwardStage1(rec: Recorder, plan: StepPlan, last: boolean): Promise<void> {
    const { trainer } = this.ctx;
    trainer.recordBackward(rec, plan);
    if (last && this.fullScale && this.gradReadback) {
      rec.dispatch(this.fullScale);
      this.gradReadback.record(rec, trainer.grads, 0, trainer.spec.total);
      rec.clear(trainer.grads);
    }
    rec.submit();
    if (last && this.gradReadback) this.grads.set(await this.gradReadback.read(trainer.spec.total));
  }

  /** Stage 2: each layer's gradients (a large Linear's in row pieces) pass through the bucket into the host sum. */
  private async backwardStage2(s: Stage2, first: Recorder, plan: StepPlan, firstMicro: boolean): Promise<void> {
    if (firstMicro) this.grads.fill(0);
    let rec = first;
    rec.phase('backward');
    rec.dispatch(plan.lossBackward);
    for (const seg of plan.backward) {
      const l = s.layers.get(seg.layer);
      const large = s.pieces.layer(seg.layer);
      // A large layer's whole-layer weight gradient would not fit the bucket: its pieces replace it
      // (and the tiled kernel's reduce of split-K slices, where the tuning picks the tiled kernel).
      for (const op of seg.ops) if (!large || !WHOLE_WEIGHT_GRAD.test(op.label)) rec.dispatch(op);
      if (!l) continue;
      if (!large) {
        rec = await s.bucket.drain(rec, l.size, [[l.start, 0, l.size]]);
        continue;
      }
      rec = await s.pieces.drainWeightPieces(rec, s.bucket, large, seg.io, plan.batch);
    }
    rec.submit();
  }

  dispose(): void {
    this.fullScale?.destroy();
    this.stage2?.bucket.destroy();
    this.stage2?.pieces.destroy();
    this.ctx.gpu.memory.destroy(this.factor);
    this.gradReadback?.destroy();
    this.paramReadback.destroy();
  }
}
