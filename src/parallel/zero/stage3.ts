// A ZeRO-3 step (DeepSpeed stage 3). Every layer's parameters are split 1/W over the ranks
// (chunkRange of the layer: rank r holds chunk r of every layer, fp32, with its optimizer state
// and reduced gradients). Before a layer's forward, and again before its backward, the layer is
// all-gathered (ProcessGroup.allGather on the layer's span of a host receive buffer) and the
// trainer loads it into one working buffer bounded by bucketLayout (a small layer whole, a large
// Linear in 15-row pieces for forward and weight gradient and 512-column pieces for the input
// gradient: 65,536 floats at width 1, where fc1 alone is 524,416; train/layerwise.ts). Gradients
// leave through the stage-2 bucket and are reduce-scattered per layer at the step's end; this
// runner's step then updates only this rank's partition.
// fp16 (DeepSpeed's fp16 with stage 3): the partition above is the fp32 master (optimizer state);
// the rank also holds its partition as fp16 halves, and those are what is all-gathered (half the
// bytes) into a working buffer of halves that the layer kernels read through unpack2x16float. A
// layer's chunk is cut on word boundaries (zeroPartition(..., fp16)). The loss gradient carries
// the loss scale; each layer's summed gradients are packed into halves and reduce-scattered as
// halves, the ranks agree on the overflow flag, and an overflowing step is skipped; else the
// partition is unscaled into float32, the master steps and is cast into the fp16 partition.
//
// One step, top-down (step()): for each micro-batch, 1. its data, 2. the forward (each layer
// gathered first), 3. the backward (each layer gathered again, its gradients out to the host);
// then 4. the reduce-scatter of every layer, the partition's optimizer step.
import type { Batch } from '../../data/batch.ts';
import { halvesView } from '../../comm/collectives.ts';
import type { LossScaler } from '../../optim/loss-scaler.ts';
import { halvesOverflow, packHalves, unpackHalves } from '../../numeric/f16.ts';
import { LayerwiseReplica, type LayerParams } from '../../train/layerwise.ts';
import type { LayerSpan } from '../../train/partitioned.ts';
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
import { lossScalerOf, scalerStep, type Fp16StepInfo } from '../fp16.ts';
import { clipPartition } from './clip-partition.ts';
import { ownedChunks, type OwnedChunk } from './layout.ts';

const words = (n: number) => Math.ceil(n / 2);
const size = (o: OwnedChunk) => o.own.end - o.own.start;

/** fp16: the loss scaler and the host's halves (the partition's; every layer's gathered ones, from OwnedChunk.w). */
interface Halves {
  readonly scaler: LossScaler;
  readonly part: Uint32Array;
  readonly layers: Uint32Array;
}

export class Zero3Runner implements ModeRunner, LayerParams {
  /** Where all-gathers land (host memory: the ring's receive buffer), by arena offset. */
  readonly values: Float32Array;
  /** This rank's partition (host copy of the device's). */
  private readonly part: Float32Array;
  private readonly byName: ReadonlyMap<string, OwnedChunk>;

  private constructor(
    private readonly ctx: ModeContext,
    private readonly owned: readonly OwnedChunk[],
    /** The device side: the working buffer, the bucket, the partition and its optimizer. */
    private readonly device: LayerwiseReplica,
    /** fp16 mixed precision; null: float32 parameters. */
    private readonly half: Halves | null,
    /** Elements in the partition (fp16: with each chunk padded to a whole word). */
    count: number,
  ) {
    this.values = new Float32Array(ctx.trainer.spec.total);
    this.part = new Float32Array(Math.max(1, count));
    this.byName = new Map(owned.map((o) => [o.l.layer, o]));
  }

  get optimizer() {
    return this.device.optimizer;
  }

  static async create(ctx: ModeContext): Promise<Zero3Runner> {
    const { trainer, rank, world, config } = ctx;
    const fp16 = config.fp16;
    const { owned, count } = ownedChunks(trainer.spec, rank, world, config.reduceBucketSize, fp16);
    const device = await LayerwiseReplica.create(trainer, {
      world,
      count,
      bucketSize: config.reduceBucketSize,
      optimizer: optimizerOf(config),
      fp16,
    });
    const half = fp16
      ? {
          scaler: lossScalerOf(config),
          part: new Uint32Array(Math.max(1, words(count))),
          layers: new Uint32Array(owned.reduce((a, o) => a + words(o.l.size), 0)),
        }
      : null;
    return new Zero3Runner(ctx, owned, device, half, count);
  }

  // LayerParams: what the trainer's layer-by-layer forward and backward read

  span(name: string): LayerSpan | null {
    return this.byName.get(name)?.l ?? null;
  }

  /** All-gathers one layer into `values` (this rank contributes its chunk); fp16: its halves. */
  async gather(name: string): Promise<void> {
    const o = this.byName.get(name);
    if (!o) throw new Error(`ZeRO-3 holds no chunk of layer ${name}`);
    const { ctx, half } = this;
    if (half) {
      const lw = half.layers.subarray(o.w, o.w + words(o.l.size));
      lw.set(half.part.subarray(o.at / 2, o.at / 2 + words(size(o))), o.own.start / 2);
      if (ctx.world > 1) await ctx.comm(() => ctx.pg.allGather(halvesView(lw)));
      this.values.set(unpackHalves(lw, o.l.size), o.l.start);
      return;
    }
    const view = this.values.subarray(o.l.start, o.l.start + o.l.size);
    view.set(this.part.subarray(o.at, o.at + size(o)), o.own.start);
    if (ctx.world > 1) await ctx.comm(() => ctx.pg.allGather(view));
  }

  held(name: string): Float32Array | Uint32Array {
    const o = this.byName.get(name);
    if (!o) throw new Error(`ZeRO-3 holds no chunk of layer ${name}`);
    if (this.half) return this.half.layers.subarray(o.w, o.w + words(o.l.size));
    return this.values.subarray(o.l.start, o.l.start + o.l.size);
  }

  async syncInitial(): Promise<void> {
    const { pg, world, initialParams } = this.ctx;
    const { values, part, half } = this;
    values.set(initialParams);
    if (world > 1) await this.ctx.comm(() => pg.broadcast(values, 0));
    for (const o of this.owned) {
      const mine = values.subarray(o.l.start + o.own.start, o.l.start + o.own.end);
      if (!half) {
        part.set(mine, o.at);
        continue;
      }
      // the partition's halves, and the master from their values (DeepSpeed halves the module,
      // then copies its fp32 master from it)
      const hw = packHalves(mine);
      half.part.set(hw, o.at / 2);
      part.set(unpackHalves(hw, mine.length), o.at);
    }
    this.device.setPartition(part, half?.part ?? null);
  }

  async syncParams(): Promise<void> {
    for (const o of this.owned) await this.gather(o.l.layer);
  }

  optimizerView(): OptimizerView {
    return {
      optimizer: this.device.optimizer,
      segments: this.owned.map((o) => [o.l.start + o.own.start, o.at, size(o)] as const),
      // fp16: the fp32 partition is the master
      master: this.half ? this.device.partParams : null,
    };
  }

  lossScaler(): LossScaler | null {
    return this.half?.scaler ?? null;
  }

  async readParams(): Promise<Float32Array<ArrayBuffer>> {
    await this.syncParams();
    return this.values.slice();
  }

  async step(micro: readonly MicroBatch[], lr: number): Promise<StepStats> {
    const { source } = this.ctx;
    if (!source) throw new Error('ZeRO-3 rank has no data source');
    const stats = new StatsSum();
    this.device.grads.fill(0);
    const lossScale = this.half?.scaler.scale ?? 1;
    for (const mb of micro) {
      // 1. data
      const batch = source.trainBatch(mb.start, mb.count);
      // 2. forward, each layer gathered; 3. backward, each layer gathered again, gradients to the host
      const pass = await this.device.forward(batch, lossScale / (mb.count * micro.length), this);
      await this.device.backward(pass, this);
      const r = await pass.stats();
      stats.add(r.loss, r.correct, mb.count);
    }
    // 4. every layer reduce-scattered, the partition stepped
    if (this.half) return { ...stats.value, fp16: await this.fp16Update(this.half, lr) };
    const g = new Float32Array(this.part.length);
    for (const o of this.owned) {
      const host = this.device.grads;
      const { chunk } = await this.ctx.comm(() =>
        this.ctx.pg.reduceScatter(host.subarray(o.l.start, o.l.start + o.l.size)),
      );
      g.set(chunk, o.at);
    }
    await this.update(g, lr);
    return stats.value;
  }

  /**
   * fp16: each layer's summed gradients packed into halves and reduce-scattered as halves, the
   * overflow flag agreed on with the other ranks, the scaler stepped; unless the step is skipped,
   * the chunks unscaled into the partition's gradients and the update.
   */
  private async fp16Update(h: Halves, lr: number): Promise<Fp16StepInfo> {
    const { ctx } = this;
    const { pg } = ctx;
    const host = this.device.grads;
    const mine: Uint32Array[] = [];
    let local = 0;
    for (const o of this.owned) {
      const lw = packHalves(host, o.l.start, o.l.size);
      const r = await ctx.comm(() => pg.reduceScatter(halvesView(lw), { halves: true }));
      const chunk = lw.subarray(r.start, r.end);
      if (halvesOverflow(chunk, size(o))) local = 1;
      mine.push(chunk);
    }
    const [ranks = 0] = await ctx.comm(() => pg.allReduceScalars([local]));
    const info = scalerStep(h.scaler, ranks > 0);
    if (info.skipped) return info;
    const g = new Float32Array(this.part.length);
    for (const [k, o] of this.owned.entries()) {
      const chunk = mine[k];
      if (chunk) g.set(unpackHalves(chunk, size(o), 1 / info.lossScale), o.at);
    }
    await this.update(g, lr);
    return info;
  }

  /** Clips the reduced partition gradients `g` by the global norm and steps this rank's partition. */
  private async update(g: Float32Array, lr: number): Promise<void> {
    await clipPartition(this.ctx, g);
    const read = await this.device.update(g, lr);
    if (this.half) this.half.part.set(new Uint32Array(read.buffer, read.byteOffset, this.half.part.length));
    else this.part.set(read);
  }

  /** Forward only, from the last gathered parameters (after syncParams: the current ones). */
  evaluate(b: Batch): Promise<StepResult> {
    return this.device.evaluate(b, this);
  }

  dispose(): void {
    this.device.destroy();
  }
}
