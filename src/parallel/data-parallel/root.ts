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
import { StatsSum, type MicroBatch, type ModeContext, type ModeRunner, type StepStats } from '../mode.ts';
import type { StepResult } from '../../train/trainer.ts';
import { GatheredLoss } from '../../train/gathered-loss.ts';
import type { LossScaler } from '../../optim/loss-scaler.ts';
import { halvesView } from '../../comm/collectives.ts';
import { lossScalerOf, scalerStep } from '../fp16.ts';
import type { ChunkRule } from './chunks.ts';
import { encodeBatch, pairRecv, pairSend } from './wire.ts';

export class DataParallelRoot implements ModeRunner {
  private constructor(
    private readonly ctx: ModeContext,
    private readonly chunks: ChunkRule,
    /** The device side: the whole batch, the loss over the gathered outputs, the reduce-add, the step. */
    private readonly device: GatheredLoss,
    /** fp16: the loss scaler. */
    private readonly scaler: LossScaler | null,
  ) {}

  lossScaler(): LossScaler | null {
    return this.scaler;
  }

  static async create(ctx: ModeContext, chunks: ChunkRule): Promise<DataParallelRoot> {
    const { trainer, config } = ctx;
    const device = await GatheredLoss.create(trainer, config.batchSize * ctx.world, config.fp16);
    return new DataParallelRoot(ctx, chunks, device, config.fp16 ? lossScalerOf(config) : null);
  }

  /** The parameters the replicas get: float32, or fp16's packed halves (as floats' bits, for the wire). */
  private async outgoing(): Promise<Float32Array> {
    const t = this.ctx.trainer;
    return this.scaler ? halvesView(await t.readHalves()) : t.readParams();
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
    // 4. the one optimizer step (fp16: unless the summed halves overflowed)
    const scaler = this.scaler;
    if (!scaler) {
      await this.device.update(lr);
      return stats.value;
    }
    const lossScale = scaler.scale;
    const fp16 = await this.device.update(lr, { lossScale, decide: (overflow) => scalerStep(scaler, overflow) });
    return fp16 ? { ...stats.value, fp16 } : stats.value;
  }

  private async micro(mb: MicroBatch, accum: number, more: boolean): Promise<StepResult> {
    const { trainer, source, pairs } = this.ctx;
    if (!source) throw new Error('DataParallel device 0 has no data source');
    const B = mb.count;
    // 1. data: the whole batch, cut into every device's chunk
    const endData = this.ctx.tracer.begin('data', 'data');
    const batch = source.trainBatch(mb.start, B);
    endData();
    const sizes = this.chunks(B, this.ctx.world, this.ctx.config);
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
    // 2. forward: device 0's own chunk through the model, every replica's outputs gathered
    await this.device.forward(batch, sizes[0] ?? 0);
    await this.ctx.comm(() => send, 'scatter');
    await this.ctx.comm(
      () =>
        Promise.all(
          active.map(async (r) => {
            const l = await pairRecv(pairs.get(r)!, (sizes[r] ?? 0) * K, true, r);
            this.device.setOutputs(offs[r] ?? 0, l);
          }),
        ),
      'gather logits',
    );
    // 3. the loss over the whole batch, the output gradients out, device 0's backward
    const stats = await this.device.lossBackward((this.scaler?.scale ?? 1) / (B * accum));
    const dl = await this.device.outputGradients();
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
      const n = this.scaler ? Math.ceil(P / 2) : P;
      const g = await this.ctx.comm(() => pairRecv(pairs.get(r)!, n, true, r), `gather grads ${r}`);
      this.device.addGradients(g);
    }
    return stats;
  }

  dispose(): void {
    this.device.destroy();
  }
}
