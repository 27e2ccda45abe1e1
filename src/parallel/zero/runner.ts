// A ZeRO step (stages 1 and 2). Rank r keeps optimizer state only for its contiguous partition of
// the flat arena (zeroPartition). Gradients are pre-divided by W and reduce-scattered, so rank r
// holds the averaged gradient of its partition; it updates only that partition; the parameters
// are all-gathered. Stage 1 still holds a full gradient arena. Stage 2 does not: backward writes
// into one bounded bucket (bucketLayout: a layer, or a 15-row piece of fc1; 61,455 floats at
// width 1), which is pre-divided, read back and cleared after each layer or piece
// (train/partitioned.ts); the rank's device gradients are that bucket plus its reduced partition:
// 240 KiB + P/W, against P for DDP (2.18 MB at width 1).
// Clipping uses the global norm (partition norms all-reduced).
// fp16 (DeepSpeed's fp16 with ZeRO): the loss gradient is multiplied by the loss scale; the summed
// gradients are cast to halves and reduce-scattered as halves (half the bytes), each rank checks
// its partition for inf/NaN and the ranks agree on the flag (DeepSpeed all-reduces it); an
// overflowing step is skipped, else the partition is unscaled into float32, the rank's fp32 master
// steps, and the fp16 parameters (halves) are all-gathered.
import type { Range } from '../../comm/ring-schedule.ts';
import { StatsSum, type MicroBatch, type ModeContext, type ModeRunner, type StepStats } from '../mode.ts';
import { clipPartition } from './clip-partition.ts';
import { layerRanges, zeroPartition } from './layout.ts';
import { halvesView } from '../../comm/collectives.ts';
import type { LossScaler } from '../../optim/loss-scaler.ts';
import { halvesOverflow } from '../../numeric/f16.ts';
import { HALF_CODECS, type HalfFormat } from '../../train/half-format.ts';
import { PartitionedBackward } from '../../train/partitioned.ts';
import { lossScalerOf, scalerStep, type Fp16StepInfo } from '../fp16.ts';

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
    /** The device side: the backward's gradients to the host, the partition's update. */
    private readonly device: PartitionedBackward,
  ) {
    this.host = new Float32Array(ctx.trainer.spec.total);
    this.grads = device.host;
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
    const { trainer, world, rank, config } = ctx;
    const halves = config.fp16 || config.bf16;
    const part = zeroPartition(rank, world, trainer.spec.total, halves);
    const bucketSize = config.reduceBucketSize;
    const bounded = stage === 2 ? { bucketSize, layers: layerRanges(trainer.spec, bucketSize) } : null;
    return new ZeroRunner(ctx, part, await PartitionedBackward.create(trainer, { world, part, halves, bounded }));
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
    const { trainer, source } = this.ctx;
    if (!source) throw new Error('ZeRO rank has no data source');
    const stats = new StatsSum();
    const lossScale = this.fp16?.scaler?.scale ?? 1;
    for (const [m, mb] of micro.entries()) {
      // 1. data
      const endData = this.ctx.tracer.begin('data', 'data');
      const batch = source.trainBatch(mb.start, mb.count);
      endData();
      // 2. forward and loss; 3. backward, its pre-divided gradients summed on the host
      const pass = await trainer.forward(batch, lossScale / (mb.count * micro.length), 'zero.forward_backward');
      await this.device.backward(pass, m === 0, m === micro.length - 1);
      const r = await pass.stats();
      stats.add(r.loss, r.correct, mb.count);
    }
    // 4. reduce-scatter, the partition's optimizer step, all-gather
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
    const { trainer, pg } = this.ctx;
    await clipPartition(this.ctx, chunk);
    // fp16: the partition's halves (cast from the master by the update), words from part.start / 2
    const read = await this.device.update(chunk, lr);
    if (this.fp16) {
      const words = this.fp16.words;
      if (read) words.set(new Uint32Array(read.buffer, read.byteOffset, read.length), this.part.start / 2);
      await this.ctx.comm(() => pg.allGather(halvesView(words)), 'all-gather');
      trainer.master?.writeHalves(words);
      return;
    }
    if (read) this.host.set(read, this.part.start);
    await this.ctx.comm(() => pg.allGather(this.host), 'all-gather');
    trainer.setParams(this.host);
  }

  dispose(): void {
    this.device.destroy();
  }
}
