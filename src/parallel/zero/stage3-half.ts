// ZeRO-3's fp16 state on one rank (DeepSpeed's fp16 with stage 3): the loss scaler, this rank's
// partition as halves (`params.partition.fp16`, counted as parameters; cast from the fp32 master
// partition after each step), the layers' gathered halves (the all-gathers' receive buffer, half
// the bytes of float32's), and the step's gradients packed into halves and reduce-scattered as
// halves per layer, with the overflow flag the ranks agree on.
import { storageBuffer } from '../../gpu/buffers.ts';
import type { Gpu } from '../../gpu/device.ts';
import { grid1d, makeOp, type Op } from '../../gpu/op.ts';
import type { Readback } from '../../gpu/readback.ts';
import type { Recorder } from '../../gpu/recorder.ts';
import { halvesView } from '../../comm/collectives.ts';
import type { LossScaler } from '../../optim/loss-scaler.ts';
import { halvesOverflow, packHalves, unpackHalves } from '../../numeric/f16.ts';
import type { TrainConfig } from '../../config.ts';
import { lossScalerOf, scalerStep, type Fp16StepInfo } from '../fp16.ts';
import type { ModeContext } from '../mode.ts';
import type { OwnedChunk } from './layout.ts';

const words = (n: number) => Math.ceil(n / 2);
const size = (o: OwnedChunk) => o.own.end - o.own.start;

export class Zero3Halves {
  readonly scaler: LossScaler;
  /** Host copy of `partHalves`. */
  private readonly partWords: Uint32Array;
  /** Every layer's halves from OwnedChunk.w. */
  private readonly words: Uint32Array;

  private constructor(
    private readonly gpu: Gpu,
    config: TrainConfig,
    private readonly partHalves: GPUBuffer,
    private readonly cast: Op<'cast_f32_to_f16'>,
    totalWords: number,
  ) {
    this.scaler = lossScalerOf(config);
    this.partWords = new Uint32Array(partHalves.size / 4);
    this.words = new Uint32Array(totalWords);
  }

  /** For a master partition `master` of `count` elements (even) and `owned` layer chunks. */
  static async create(
    gpu: Gpu,
    config: TrainConfig,
    master: GPUBuffer,
    count: number,
    owned: readonly OwnedChunk[],
  ): Promise<Zero3Halves> {
    const partHalves = storageBuffer(gpu, 'params.partition.fp16', Math.max(1, words(count)) * 4, 'parameters');
    const k = await gpu.kernels.get('cast_f32_to_f16');
    const cast = makeOp(
      gpu,
      k,
      'params.partition.cast',
      { count, s_off: 0, d_off: 0, scale: 1 },
      { src: master, dst: partHalves },
      grid1d(words(count), k.overrides.WG ?? 64),
    );
    const total = owned.reduce((a, o) => a + words(o.l.size), 0);
    return new Zero3Halves(gpu, config, partHalves, cast, total);
  }

  /**
   * Sets chunk `o` from its full-precision values `mine` (rounded to halves) and returns the
   * master's values: the halves' (DeepSpeed halves the module, then copies its fp32 master from it).
   */
  init(o: OwnedChunk, mine: Float32Array): Float32Array {
    const hw = packHalves(mine);
    this.partWords.set(hw, o.at / 2);
    return unpackHalves(hw, mine.length);
  }

  /** Writes the host's fp16 partition to the device (after init). */
  upload(): void {
    this.gpu.uploads.write(this.partHalves, 0, this.partWords, 'communication', 'params.partition.fp16');
  }

  /** Layer `o`'s gathered halves (what the working buffer holds for a small layer). */
  layer(o: OwnedChunk): Uint32Array {
    return this.words.subarray(o.w, o.w + words(o.l.size));
  }

  /** All-gathers layer `o`'s halves (this rank contributes its chunk); returns their values. */
  async gather(ctx: ModeContext, o: OwnedChunk): Promise<Float32Array> {
    const lw = this.layer(o);
    lw.set(this.partWords.subarray(o.at / 2, o.at / 2 + words(size(o))), o.own.start / 2);
    if (ctx.world > 1) await ctx.comm(() => ctx.pg.allGather(halvesView(lw)));
    return unpackHalves(lw, o.l.size);
  }

  /**
   * Packs each layer's summed gradients (`host`, by arena offset) into halves, reduce-scatters
   * them as halves, agrees on the overflow flag with the other ranks and steps the scaler; unless
   * the step is skipped, `grads` (the partition's layout) gets this rank's chunks unscaled.
   */
  async reduce(
    ctx: ModeContext,
    owned: readonly OwnedChunk[],
    host: Float32Array,
    grads: Float32Array,
  ): Promise<Fp16StepInfo> {
    const { pg } = ctx;
    const mine: Uint32Array[] = [];
    let local = 0;
    for (const o of owned) {
      const lw = packHalves(host, o.l.start, o.l.size);
      const r = await ctx.comm(() => pg.reduceScatter(halvesView(lw), { halves: true }));
      const chunk = lw.subarray(r.start, r.end);
      if (halvesOverflow(chunk, size(o))) local = 1;
      mine.push(chunk);
    }
    const [ranks = 0] = await ctx.comm(() => pg.allReduceScalars([local]));
    const info = scalerStep(this.scaler, ranks > 0);
    if (info.skipped) return info;
    for (const [k, o] of owned.entries()) {
      const chunk = mine[k];
      if (chunk) grads.set(unpackHalves(chunk, size(o), 1 / info.lossScale), o.at);
    }
    return info;
  }

  /** Records the cast of the stepped master into the fp16 partition and its copy into `readback`. */
  recordCast(rec: Recorder, readback: Readback): void {
    rec.dispatch(this.cast);
    readback.record(rec, this.partHalves, 0, this.partWords.length);
  }

  /** Takes the fp16 partition from `readback` once the recordCast work is submitted. */
  async read(readback: Readback): Promise<void> {
    const f = await readback.read(this.partWords.length);
    this.partWords.set(new Uint32Array(f.buffer, f.byteOffset, this.partWords.length));
  }

  destroy(): void {
    this.cast.destroy();
    this.gpu.memory.destroy(this.partHalves);
  }
}
