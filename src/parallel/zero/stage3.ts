// A ZeRO-3 step (DeepSpeed stage 3). Every layer's parameters are split 1/W over the ranks
// (chunkRange of the layer: rank r holds chunk r of every layer, fp32, with its optimizer state
// and reduced gradients). Before a layer's forward, and again before its backward, the layer is
// all-gathered (ProcessGroup.allGather on the layer's span of a host receive buffer) and uploaded
// into one working buffer bounded by bucketLayout (a small layer whole, a large Linear in
// 15-row pieces for forward and weight gradient and 512-column pieces for the input gradient:
// 65,536 floats at width 1, where fc1 alone is 524,416); the next layer's upload releases it
// (that per-layer path, with the forward and backward around it: stage3-layers.ts). Gradients
// leave through the stage-2 bucket (grad-bucket.ts) and are reduce-scattered per layer at the
// step's end; this runner's step then updates only this rank's partition.
// fp16 (DeepSpeed's fp16 with stage 3; stage3-half.ts): the partition above is the fp32 master
// (optimizer state); the rank also holds its partition as fp16 halves, and those are what
// is all-gathered (half the bytes) and uploaded into a working buffer of halves that the layer
// kernels read through unpack2x16float. A layer's chunk is cut on word boundaries
// (zeroPartition(..., fp16)). The loss gradient carries the loss scale; each layer's summed
// gradients are packed into halves and reduce-scattered as halves, the ranks agree on the
// overflow flag, and an overflowing step is skipped; else the partition is unscaled into float32,
// the master steps and is cast into the fp16 partition.
import { storageBuffer, writeFloats } from '../../gpu/buffers.ts';
import { Readback } from '../../gpu/readback.ts';
import { Recorder } from '../../gpu/recorder.ts';
import type { Batch } from '../../data/batch.ts';
import type { LossScaler } from '../../optim/loss-scaler.ts';
import { createOptimizer, type Optimizer } from '../../optim/optimizer.ts';
import type { StepResult } from '../../train/trainer.ts';
import {
  optimizerOf,
  StatsSum,
  type MicroBatch,
  type ModeContext,
  type ModeRunner,
  type OptimizerView,
  type StepStats,
} from '../mode.ts';
import type { Fp16StepInfo } from '../fp16.ts';
import { clipPartition } from './clip-partition.ts';
import { GradientBucket } from '../../train/grad-bucket.ts';
import { ownedChunks, type OwnedChunk } from './layout.ts';
import { Zero3Halves } from './stage3-half.ts';
import { Zero3Layers } from './stage3-layers.ts';

export class Zero3Runner implements ModeRunner {
  private constructor(
    private readonly ctx: ModeContext,
    private readonly owned: readonly OwnedChunk[],
    private readonly partParams: GPUBuffer,
    private readonly partGrads: GPUBuffer,
    readonly optimizer: Optimizer,
    private readonly bucket: GradientBucket,
    /** The host's partition and gathered layers, the forward and backward around their uploads. */
    private readonly layers: Zero3Layers,
    private readonly readback: Readback,
    /** fp16 mixed precision; null: float32 parameters. */
    private readonly half: Zero3Halves | null,
  ) {}

  static async create(ctx: ModeContext): Promise<Zero3Runner> {
    const { gpu, trainer, rank, world } = ctx;
    const fp16 = ctx.config.fp16;
    const { owned, count: at } = ownedChunks(trainer.spec, rank, world, ctx.config.reduceBucketSize, fp16);
    const n = Math.max(1, at);
    // fp16: the fp32 partition is the master copy the optimizer steps (optimizer state, as Fp32Master's)
    const partParams = fp16
      ? storageBuffer(gpu, 'params.partition.fp32_master', n * 4, 'optimizer')
      : storageBuffer(gpu, 'params.partition', n * 4, 'parameters');
    const partGrads = storageBuffer(gpu, 'grads.partition', n * 4, 'gradients');
    const optimizer = await createOptimizer(gpu, optimizerOf(ctx.config), {
      params: partParams,
      grads: partGrads,
      paramOffset: 0,
      gradOffset: 0,
      count: at,
    });
    const bucket = new GradientBucket(gpu, trainer, world);
    const readback = new Readback(gpu, 'zero3.partition.readback', fp16 ? Math.ceil(n / 2) : n);
    const half = fp16 ? await Zero3Halves.create(gpu, ctx.config, partParams, at, owned) : null;
    const layers = new Zero3Layers(ctx, owned, bucket, half, at);
    return new Zero3Runner(ctx, owned, partParams, partGrads, optimizer, bucket, layers, readback, half);
  }

  async syncInitial(): Promise<void> {
    const { pg, world, initialParams } = this.ctx;
    const { gathered, part } = this.layers;
    gathered.set(initialParams);
    if (world > 1) await this.ctx.comm(() => pg.broadcast(gathered, 0));
    const h = this.half;
    for (const o of this.owned) {
      const mine = gathered.subarray(o.l.start + o.own.start, o.l.start + o.own.end);
      if (!h) {
        part.set(mine, o.at);
        continue;
      }
      part.set(h.init(o, mine), o.at);
    }
    this.ctx.gpu.uploads.write(this.partParams, 0, part, 'communication', 'params.partition');
    h?.upload();
  }

  async syncParams(): Promise<void> {
    await this.layers.gatherAll();
  }

  optimizerView(): OptimizerView {
    return {
      optimizer: this.optimizer,
      segments: this.owned.map((o) => [o.l.start + o.own.start, o.at, o.own.end - o.own.start] as const),
      // fp16: the fp32 partition is the master
      master: this.half ? this.partParams : null,
    };
  }

  lossScaler(): LossScaler | null {
    return this.half?.scaler ?? null;
  }

  async readParams(): Promise<Float32Array<ArrayBuffer>> {
    await this.syncParams();
    return this.layers.gathered.slice();
  }

  async step(micro: readonly MicroBatch[], lr: number): Promise<StepStats> {
    const { trainer, source, gpu } = this.ctx;
    if (!source) throw new Error('ZeRO-3 rank has no data source');
    const stats = new StatsSum();
    this.bucket.host.fill(0);
    const lossScale = this.half?.scaler.scale ?? 1;
    for (const mb of micro) {
      const batch = source.trainBatch(mb.start, mb.count);
      const plan = await trainer.upload(batch);
      plan.lossBackward.setParams({ scale: lossScale / (mb.count * micro.length) });
      const rec = await this.layers.forward(new Recorder(gpu, 'zero3.forward'), plan, 'images' in batch, true);
      const statsBuf = trainer.copyStats(rec);
      await this.layers.backward(rec, plan);
      const r = await trainer.readStats(statsBuf, mb.count);
      stats.add(r.loss, r.correct, mb.count);
    }
    if (this.half) return { ...stats.value, fp16: await this.fp16Update(this.half, lr) };
    const g = new Float32Array(this.layers.part.length);
    for (const o of this.owned) {
      const { chunk } = await this.ctx.comm(() =>
        this.ctx.pg.reduceScatter(this.bucket.host.subarray(o.l.start, o.l.start + o.l.size)),
      );
      g.set(chunk, o.at);
    }
    await this.update(g, lr);
    return stats.value;
  }

  /** fp16: the gradients reduce-scattered as halves, the overflow agreed on, then the update unless skipped. */
  private async fp16Update(h: Zero3Halves, lr: number): Promise<Fp16StepInfo> {
    const g = new Float32Array(this.layers.part.length);
    const info = await h.reduce(this.ctx, this.owned, this.bucket.host, g);
    if (!info.skipped) await this.update(g, lr);
    return info;
  }

  /** Clips the reduced partition gradients `g` by the global norm and steps this rank's partition. */
  private async update(g: Float32Array, lr: number): Promise<void> {
    const { gpu } = this.ctx;
    await clipPartition(this.ctx, g);
    writeFloats(gpu, this.partGrads, 0, g);
    const rec = new Recorder(gpu, 'zero3.update');
    rec.phase('optimizer');
    this.optimizer.record(rec, lr);
    if (this.half) {
      this.half.recordCast(rec, this.readback);
      rec.submit();
      await this.half.read(this.readback);
      return;
    }
    const { part } = this.layers;
    this.readback.record(rec, this.partParams, 0, part.length);
    rec.submit();
    part.set(await this.readback.read(part.length));
  }

  /** Forward only, from the last gathered parameters (after syncParams: the current ones). */
  async evaluate(b: Batch): Promise<StepResult> {
    const { trainer, gpu } = this.ctx;
    const plan = await trainer.upload(b);
    const rec = await this.layers.forward(new Recorder(gpu, 'zero3.eval'), plan, 'images' in b, false);
    return trainer.finish(rec, plan.batch, undefined, false);
  }

  dispose(): void {
    const m = this.ctx.gpu.memory;
    this.optimizer.destroy();
    this.bucket.destroy();
    this.layers.destroy();
    this.readback.destroy();
    m.destroy(this.partParams);
    m.destroy(this.partGrads);
    this.half?.destroy();
  }
}
