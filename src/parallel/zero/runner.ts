// A ZeRO step (stages 1 and 2). Rank r keeps optimizer state only for its contiguous partition of
// the flat arena (zeroPartition). Gradients are pre-divided by W and reduce-scattered, so rank r
// holds the averaged gradient of its partition; it updates only that partition; the parameters
// are all-gathered. Stage 1 still holds a full gradient arena; stage 2 does not: each layer's
// gradients leave the GPU as soon as that layer's backward is done (one layer-sized scratch
// buffer, read back in 256 KiB pieces), and only the reduced partition comes back.
// Clipping uses the global norm (partition norms all-reduced).
import { bufferFrom } from '../../gpu/buffers.ts';
import { grid1d, makeOp, type Op } from '../../gpu/op.ts';
import { Readback } from '../../gpu/readback.ts';
import { Recorder } from '../../gpu/recorder.ts';
import type { StepPlan } from '../../nn/model.ts';
import { clipCoefficient } from '../../reference/clip.ts';
import type { Range } from '../../comm/ring-schedule.ts';
import { StatsSum, type MicroBatch, type ModeContext, type ModeRunner, type StepStats } from '../mode.ts';
import { zeroPartition } from './layout.ts';

interface LayerOut {
  readonly layer: string;
  readonly offset: number;
  readonly count: number;
  readonly prescale: Op;
}

/** ZeRO-2 reads gradients back through a bounded staging buffer (64 Ki floats = 256 KiB) in pieces. */
const STAGE2_PIECE = 64 * 1024;

export class ZeroRunner implements ModeRunner {
  private host: Float32Array;
  private readonly grads: Float32Array;

  private constructor(
    private readonly ctx: ModeContext,
    private readonly part: Range,
    private readonly factor: GPUBuffer,
    private readonly gradReadback: Readback,
    private readonly paramReadback: Readback,
    /** Stage 1: one prescale of the whole arena; stage 2: null (per layer instead). */
    private readonly fullScale: Op | null,
    private readonly layers: readonly LayerOut[],
  ) {
    this.host = new Float32Array(ctx.trainer.spec.total);
    this.grads = new Float32Array(ctx.trainer.spec.total);
  }

  static async create(ctx: ModeContext, stage: 1 | 2): Promise<ZeroRunner> {
    const { gpu, trainer, world, rank } = ctx;
    const P = trainer.spec.total;
    const factor = bufferFrom(gpu, 'zero.inv_world', Float32Array.of(1 / world), 'other');
    const k = await gpu.kernels.get('scale');
    const scaleOp = (label: string, offset: number, count: number) =>
      makeOp(
        gpu,
        k,
        label,
        { count, offset, factor_index: 0 },
        { factor, data: trainer.grads },
        grid1d(count, k.overrides.WG ?? 64),
      );
    const plan = await trainer.model.plan(1);
    const layers: LayerOut[] =
      stage === 2
        ? plan.backward
            .filter((s) => s.ready.length > 0)
            .map((s) => {
              const offset = Math.min(...s.ready.map((p) => p.offset));
              const count = s.ready.reduce((a, p) => a + p.size, 0);
              return { layer: s.layer, offset, count, prescale: scaleOp(`zero.${s.layer}.prescale`, 0, count) };
            })
        : [];
    const stagingCount = stage === 2 ? Math.min(STAGE2_PIECE, Math.max(...layers.map((l) => l.count))) : P;
    const part = zeroPartition(rank, world, P);
    return new ZeroRunner(
      ctx,
      part,
      factor,
      new Readback(gpu, 'zero.grads.readback', stagingCount),
      new Readback(gpu, 'zero.partition.readback', part.end - part.start),
      stage === 2 ? null : scaleOp('zero.prescale', 0, P),
      layers,
    );
  }

  async syncInitial(): Promise<void> {
    const { trainer, pg } = this.ctx;
    this.host = await trainer.readParams();
    if (this.ctx.world > 1) await this.ctx.comm(() => pg.broadcast(this.host, 0), 'broadcast');
    trainer.setParams(this.host);
  }

  async syncParams(): Promise<void> {
    /* parameters are all-gathered every step */
  }

  async step(micro: readonly MicroBatch[], lr: number): Promise<StepStats> {
    const { trainer, source, gpu, pg, config } = this.ctx;
    if (!source) throw new Error('ZeRO rank has no data source');
    const stats = new StatsSum();
    for (const [m, mb] of micro.entries()) {
      const endData = this.ctx.tracer.begin('data', 'data');
      const batch = source.trainBatch(mb.start, mb.count);
      endData();
      const plan = await trainer.upload(batch);
      plan.lossBackward.setParams({ scale: 1 / (mb.count * micro.length) });
      const rec = new Recorder(gpu, 'zero.forward_backward');
      trainer.recordForward(rec, plan, 'images' in batch);
      const statsBuf = trainer.copyStats(rec);
      if (this.fullScale) await this.backwardStage1(rec, plan, m === micro.length - 1);
      else await this.backwardStage2(rec, plan, m === 0);
      const r = await this.ctx.tracer.span('readback stats', 'step', () => trainer.readStats(statsBuf, mb.count));
      stats.add(r.loss, r.correct, mb.count);
    }
    // Reduce-scatter the (pre-divided) gradients: this rank's partition, averaged over ranks.
    const { chunk } = await this.ctx.comm(() => pg.reduceScatter(this.grads), 'reduce-scatter');
    if (config.clipGradNorm > 0) {
      let sq = 0;
      for (const g of chunk) sq += g * g;
      const [total = 0] = await this.ctx.comm(() => pg.allReduceScalars([sq]), 'all-reduce norm');
      const coef = Math.fround(clipCoefficient(Math.sqrt(total), config.clipGradNorm));
      for (let i = 0; i < chunk.length; i++) chunk[i] = (chunk[i] ?? 0) * coef;
    }
    trainer.writeShardGrads(chunk);
    const n = this.part.end - this.part.start;
    const rec = new Recorder(gpu, 'zero.update');
    trainer.recordUpdate(rec, lr);
    if (n > 0) this.paramReadback.record(rec, trainer.params, this.part.start, n);
    rec.submit();
    if (n > 0)
      this.host.set(
        await this.ctx.tracer.span('readback params', 'step', () => this.paramReadback.read(n)),
        this.part.start,
      );
    await this.ctx.comm(() => pg.allGather(this.host), 'all-gather');
    trainer.setParams(this.host);
    return stats.value;
  }

  /** Stage 1: a full gradient arena; on the last micro-batch it is pre-divided and read back whole. */
  private async backwardStage1(rec: Recorder, plan: StepPlan, last: boolean): Promise<void> {
    const { trainer } = this.ctx;
    trainer.recordBackward(rec, plan);
    if (last && this.fullScale) {
      rec.dispatch(this.fullScale);
      this.gradReadback.record(rec, trainer.grads, 0, trainer.spec.total);
      rec.clear(trainer.grads);
    }
    rec.submit();
    if (last) this.grads.set(await this.gradReadback.read(trainer.spec.total));
  }

  /** Stage 2: after each layer, its gradients are pre-divided, read back (accumulated on the host) and the scratch cleared. */
  private async backwardStage2(first: Recorder, plan: StepPlan, firstMicro: boolean): Promise<void> {
    const { trainer, gpu } = this.ctx;
    if (firstMicro) this.grads.fill(0);
    let rec = first;
    rec.phase('backward');
    rec.dispatch(plan.lossBackward);
    for (const seg of plan.backward) {
      for (const op of seg.ops) rec.dispatch(op);
      const l = this.layers.find((x) => x.layer === seg.layer);
      if (!l) continue;
      rec.dispatch(l.prescale);
      for (let at = 0; at < l.count; at += STAGE2_PIECE) {
        const n = Math.min(STAGE2_PIECE, l.count - at);
        this.gradReadback.record(rec, trainer.grads, at, n);
        if (at + n >= l.count) rec.clear(trainer.grads, 0, l.count * 4);
        rec.submit();
        const g = await this.gradReadback.read(n);
        const base = l.offset + at;
        for (let i = 0; i < n; i++) this.grads[base + i] = (this.grads[base + i] ?? 0) + (g[i] ?? 0);
        rec = new Recorder(gpu, 'zero.backward');
      }
    }
    rec.submit();
  }

  dispose(): void {
    this.fullScale?.destroy();
    for (const l of this.layers) l.prescale.destroy();
    this.ctx.gpu.memory.destroy(this.factor);
    this.gradReadback.destroy();
    this.paramReadback.destroy();
  }
}
