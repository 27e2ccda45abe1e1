// DistributedDataParallel's step: every rank holds the whole model and its optimizer and trains on
// its own shard. Gradients are averaged in buckets (reverse parameter order, 1 MiB first bucket,
// then bucketCapMB, as PyTorch's Reducer: buckets.ts): as soon as backward has produced a
// bucket's gradients, the trainer announces it (train/bucketed.ts: pre-divided by the world size
// on the GPU and copied out) and this all-reduces it over the ring while the GPU goes on with the
// earlier layers. Then every rank steps its own optimizer. Ranks sharing one device (float32)
// instead join one step of all of them: the gradients summed on the device and every rank's
// update, submitted at once (train/device-reduce.ts).
// Gradient accumulation: micro-batches before the last run without any all-reduce (no_sync).
// fp16 (DeepSpeed's fp16 section): the loss gradient is multiplied by the loss scale, each bucket
// travels as halves and is all-reduced as fp16 (half the bytes, as PyTorch's fp16_compress_hook),
// the halves are checked for inf/NaN and unscaled, and an overflowing step skips the optimizer
// (../fp16.ts). bf16 (DeepSpeed's bf16 section): the same with bfloat16 pairs summed as bfloat16,
// and no loss scale, no overflow check, no skipped step.
//
// fp16 and bf16 on one worker (../fp16.ts halvesPipelined) run a step in one submit, pipelined
// (runLocal): fp16's loss scaler runs on the GPU (train/gpu-scaler.ts: the flag, the scale, the
// skipped optimizer) and the host's scaler replays it from the flags as they come back (its log
// lines, its checkpointed state), failing loudly where the two disagree.
//
// One step, top-down (run()): for each micro-batch, 1. its data, 2. the forward and the loss,
// 3. the backward (on the last micro-batch with a hook per bucket: the all-reduce); then 4. the
// optimizer.
import { BucketedBackward, type ReadyBucket } from '../../train/bucketed.ts';
import type { GpuScalerState } from '../../train/gpu-scaler.ts';
import type { SharedDeviceStep } from '../../train/shared-step.ts';
import type { LossScaler } from '../../optim/loss-scaler.ts';
import {
  StatsSum,
  type MicroBatch,
  type ModeContext,
  type ModeRunner,
  type StepHooks,
  type StepStats,
} from '../mode.ts';
import { computeBuckets } from './buckets.ts';
import { gpuScalerOf, halvesPipelined, lossScalerOf, scalerStep, type Fp16StepInfo } from '../fp16.ts';

export class DdpRunner implements ModeRunner {
  private constructor(
    private readonly ctx: ModeContext,
    private readonly buckets: BucketedBackward,
    /** fp16: the loss scaler; null: float32 or bf16. */
    private readonly scaler: LossScaler | null,
    /**
     * fp16 or bf16 on one worker, pipelined (../fp16.ts halvesPipelined): one submit a step; fp16's
     * scaler then runs on the GPU and `scaler` replays it as the steps' flags come back.
     */
    private readonly local: boolean,
  ) {}

  static async create(ctx: ModeContext): Promise<DdpRunner> {
    const { trainer, world, rank, config } = ctx;
    const format = config.bf16 ? 'bf16' : config.fp16 ? 'f16' : null;
    const local = format !== null && world === 1 && halvesPipelined(config);
    const buckets = await BucketedBackward.create(trainer, computeBuckets(trainer.spec.params, config.bucketCapMB), {
      world,
      format,
      // float32 buckets of ranks sharing the device are summed there; 16-bit ones go around the ring
      shared: ctx.colocated && format === null ? { ...ctx.colocated, rank } : null,
      gpuScaler: local && format === 'f16' ? gpuScalerOf(config) : null,
    });
    return new DdpRunner(ctx, buckets, format === 'f16' ? lossScalerOf(config) : null, local);
  }

  /** Rank 0's parameters to everyone (DDP's constructor does this). */
  async syncInitial(): Promise<void> {
    const { trainer, pg, world } = this.ctx;
    if (world === 1) return;
    const p = await trainer.readParams();
    await this.ctx.comm(() => pg.broadcast(p, 0), 'broadcast');
    trainer.setParams(p);
  }

  lossScaler(): LossScaler | null {
    return this.scaler;
  }

  async syncParams(): Promise<void> {
    /* replicas are always in sync */
  }

  /** Settles once the previous step has submitted all its work (pipelined steps start after it). */
  private queued: Promise<void> = Promise.resolve();
  /** The next step's hooks (onNextStep). */
  private hooks: StepHooks | null = null;

  async step(micro: readonly MicroBatch[], lr: number): Promise<StepStats> {
    const before = this.queued;
    let open = () => {};
    this.queued = new Promise((r) => (open = r));
    const hooks = this.hooks;
    this.hooks = null;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      hooks?.submitted?.();
      open();
    };
    try {
      await before;
      hooks?.started();
      return await this.run(micro, lr, release);
    } finally {
      release();
    }
  }

  onNextStep(hooks: StepHooks): void {
    this.hooks = hooks;
  }

  /** What DDP does with a bucket: all-reduce it (the mean: every rank's bucket is already divided by W). */
  private allReduce = (b: ReadyBucket): Promise<void> =>
    this.ctx.comm(async () => {
      await this.ctx.pg.allReduce(b.data, { ...b.packing, bucket: b.index });
    }, `all-reduce bucket ${b.index}`);

  private async run(micro: readonly MicroBatch[], lr: number, submitted: () => void): Promise<StepStats> {
    const { trainer, source, world, tracer } = this.ctx;
    if (!source) throw new Error('DDP rank has no data source');
    const { buckets, scaler } = this;
    const only = micro[0];
    if (this.local && micro.length === 1 && only) return this.runLocal(only, lr, submitted);
    const onDevice = world > 1 ? buckets.onDevice : null;
    if (onDevice && micro.length === 1 && only && onDevice.batches(only.count))
      return this.runBatched(onDevice, only, lr, submitted);
    const stats = new StatsSum();
    const lossScale = scaler?.scale ?? 1;
    // One worker, one micro-batch: the update goes in the same submit, so that the next step
    // (the coordinator may already have asked for it: ParallelMode.pipelines) queues behind it.
    const alone = world === 1 && micro.length === 1 && !buckets.mixed;
    // Ranks sharing a device: the last micro-batch's backward, the sum and the update are submitted
    // with every rank's, and the next step (ParallelMode.pipelines) may start before this step's
    // loss is back.
    for (const [m, mb] of micro.entries()) {
      const last = m === micro.length - 1;
      // 1. data
      const endData = tracer.begin('data', 'data');
      const batch = source.trainBatch(mb.start, mb.count);
      endData();
      // 2. forward and loss (the loss gradient carries the loss scale and the mean over the step)
      const pass = await trainer.forward(batch, lossScale / (mb.count * micro.length), 'ddp.forward_backward');
      // 3. backward; only the last micro-batch all-reduces (no_sync before it)
      let reduced = Promise.resolve();
      if (last && onDevice) {
        // the stats copy is in this step's one submit: read once it is submitted
        await this.ctx.comm(() => onDevice.sharedStep(pass, lr), 'all-reduce on the shared device');
        submitted();
        const r = await pass.stats();
        stats.add(r.loss, r.correct, mb.count);
        return stats.value;
      }
      if (last && world > 1) {
        reduced = buckets.backward(pass, this.allReduce);
      } else if (alone) {
        pass.backward({ update: lr });
        submitted();
      } else {
        // fp16 / bf16 on one worker: the gradients still become halves (their precision and overflow)
        pass.backward(last ? { after: buckets.packAll } : {});
      }
      // Both awaited together: if one fails (e.g. the rank is disposed mid-step after a peer died),
      // the other's rejection is still handled instead of surfacing as an unhandled error.
      const [r] = await Promise.all([pass.stats(), reduced]);
      stats.add(r.loss, r.correct, mb.count);
      if (alone) return stats.value;
    }
    // 4. the optimizer (fp16: unless the reduced halves overflowed)
    if (!scaler) {
      await buckets.update(lr);
      return stats.value;
    }
    const fp16 = await buckets.update(lr, { lossScale, decide: (overflow) => scalerStep(scaler, overflow) });
    return fp16 ? { ...stats.value, fp16 } : stats.value;
  }

  /**
   * Ranks sharing a device, float32, one micro-batch: the step of every rank batched, one dispatch
   * per layer over all their samples (train/rank-batch.ts); the next step may start before this
   * one's loss is back.
   */
  private async runBatched(
    onDevice: SharedDeviceStep,
    mb: MicroBatch,
    lr: number,
    submitted: () => void,
  ): Promise<StepStats> {
    const { source, tracer } = this.ctx;
    if (!source) throw new Error('DDP rank has no data source');
    const endData = tracer.begin('data', 'data');
    const batch = source.trainBatch(mb.start, mb.count);
    endData();
    const { result } = await this.ctx.comm(
      () => onDevice.batchedStep(batch, 1 / mb.count, lr),
      'step of the ranks sharing the device',
    );
    submitted();
    const r = await result;
    const sum = new StatsSum();
    sum.add(r.loss, r.correct, mb.count);
    return sum.value;
  }

  /** fp16 steps submitted whose outcome the host has not yet replayed (pipelined, one worker). */
  private inFlight = 0;
  /** Settles once the last submitted step's outcome is replayed (they are replayed in order). */
  private replayed: Promise<void> = Promise.resolve();

  /**
   * fp16 or bf16 on one worker, pipelined: the step in one submit (the next step may be submitted
   * behind it at once); fp16's outcome (the scale used, skipped, the scaler's state) is decided on
   * the GPU and replayed here, in step order, once it comes back with the loss.
   */
  private async runLocal(mb: MicroBatch, lr: number, submitted: () => void): Promise<StepStats> {
    const { trainer, source, tracer } = this.ctx;
    if (!source) throw new Error('DDP rank has no data source');
    const { buckets, scaler } = this;
    const stats = new StatsSum();
    const endData = tracer.begin('data', 'data');
    const batch = source.trainBatch(mb.start, mb.count);
    endData();
    // nothing in flight: the GPU's scaler starts from the host's (the start, a resumed run)
    if (scaler && this.inFlight === 0) {
      const s = scaler.state();
      const exp = scaler.dynamic ? Math.round(Math.log2(s.scale)) : 0;
      if (scaler.dynamic && 2 ** exp !== s.scale)
        throw new Error(
          `fp16: the loss scale ${s.scale} is not a power of two; the GPU's loss scaler keeps only those`,
        );
      buckets.local.loadScaler({ ...s, exp });
    }
    // dynamic: the GPU replaces this with its own scale (the host's may be steps behind)
    const lossScale = scaler?.scale ?? 1;
    const pass = await trainer.forward(batch, lossScale / mb.count, 'ddp.forward_backward');
    const staticScale = scaler && !scaler.dynamic ? scaler.scale : null;
    buckets.local.localStep(pass, lr, scaler ? { staticScale, invCount: 1 / mb.count, inFlight: this.inFlight } : null);
    submitted();
    if (!scaler) {
      const r = await pass.stats();
      stats.add(r.loss, r.correct, mb.count);
      return stats.value;
    }
    this.inFlight++;
    const before = this.replayed;
    let replayedThis = () => {};
    this.replayed = new Promise((r) => (replayedThis = r));
    try {
      const { result: r, extra } = await pass.statsWithExtra();
      const g = buckets.local.decodeScaler(extra);
      await before;
      stats.add(r.loss, r.correct, mb.count);
      return { ...stats.value, fp16: this.replay(scaler, g) };
    } finally {
      this.inFlight--;
      replayedThis();
    }
  }

  /** The host's scaler (and optimizer step count) fed the GPU's flag; throws unless both then agree. */
  private replay(scaler: LossScaler, g: GpuScalerState): Fp16StepInfo {
    const opt = this.ctx.trainer.optimizer;
    const info = scalerStep(scaler, g.skipped); // throws at min_loss_scale, as DeepSpeed does
    if (!info.skipped) opt?.countStep();
    const s = scaler.state();
    const gpu = { ...g, scale: 2 ** g.exp, used: 2 ** g.expUsed };
    const host = { ...s, used: info.lossScale, skipped: info.skipped, optimizerSteps: opt?.steps ?? 0 };
    const agree =
      g.error === 0 &&
      g.skipped === info.skipped &&
      gpu.optimizerSteps === host.optimizerSteps &&
      (!scaler.dynamic ||
        (gpu.used === host.used &&
          gpu.scale === s.scale &&
          g.iter === s.iter &&
          g.lastOverflowIter === s.lastOverflowIter &&
          g.hysteresis === s.hysteresis));
    if (!agree)
      throw new Error(
        `fp16: the loss scaler on the GPU and the host's replay of it disagree: GPU ${JSON.stringify(gpu)}, host ${JSON.stringify(host)}`,
      );
    return info;
  }

  dispose(): void {
    this.buckets.destroy();
  }
}
