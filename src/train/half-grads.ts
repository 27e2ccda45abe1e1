// fp16 gradients (DeepSpeed's fp16 optimizer, without its fused kernels): backward accumulates the
// loss-scaled gradients in the float32 arena; each segment of it (a DDP bucket, or the whole arena)
// is packed into halves (`grads.fp16`, rounding to the gradients' fp16 precision, overflow to
// infinity), which is what travels through the all-reduce; then every half is checked for inf/NaN
// (a flag read back before the optimizer step) and unpacked times 1/loss_scale into the float32
// arena the clipping and the optimizer read. Segment k's halves sit from word `words[k]`, so a
// segment of odd length never shares a word with the next. One worker whose GPU decides the step
// sends nothing, so there the passes are one, in place (recordRoundTrip; bf16 too).
import { storageBuffer } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import { Readback } from '../gpu/readback.ts';
import type { Recorder } from '../gpu/recorder.ts';
import { HALF_CODECS, type HalfFormat } from './half-format.ts';

/** A contiguous run of the gradient arena: elements [offset, offset + count). */
export interface GradSegment {
  readonly offset: number;
  readonly count: number;
}

export class HalfGradients {
  private constructor(
    private readonly gpu: Gpu,
    readonly segments: readonly GradSegment[],
    /** First word of each segment in `words`. */
    readonly wordOffsets: readonly number[],
    /** The packed fp16 gradients. */
    readonly words: GPUBuffer,
    private readonly flag: GPUBuffer,
    private readonly flagReadback: Readback,
    private readonly pack: readonly Op[],
    private readonly unpack: readonly Op[],
    private readonly check: Op<'f16_overflow'>,
    /** The in-place round trip over the segments (one op where they tile one run of the arena). */
    private readonly roundTrip: RoundTrip,
    private invScale: number,
    readonly format: HalfFormat,
  ) {}

  static async create(
    gpu: Gpu,
    grads: GPUBuffer,
    segments: readonly GradSegment[],
    format: HalfFormat = 'f16',
  ): Promise<HalfGradients> {
    const wordOffsets: number[] = [];
    let total = 0;
    for (const s of segments) {
      wordOffsets.push(total);
      total += Math.ceil(s.count / 2);
    }
    const words = storageBuffer(gpu, 'grads.fp16', total * 4, 'gradients');
    const flag = storageBuffer(gpu, 'grads.fp16.overflow', 4, 'other');
    const [kp, ku, kc] = await Promise.all([
      gpu.kernels.get(HALF_CODECS[format].packKernel),
      gpu.kernels.get(HALF_CODECS[format].unpackKernel),
      gpu.kernels.get('f16_overflow'),
    ]);
    const pack = segments.map((s, k) =>
      makeOp(
        gpu,
        kp,
        `grads.fp16.pack${k}`,
        { count: s.count, s_off: s.offset, d_off: wordOffsets[k] ?? 0, scale: 1 },
        { src: grads, dst: words },
        grid1d(Math.ceil(s.count / 2), kp.overrides.WG ?? 64),
      ),
    );
    const unpack = segments.map((s, k) =>
      makeOp(
        gpu,
        ku,
        `grads.fp16.unscale${k}`,
        { count: s.count, s_off: wordOffsets[k] ?? 0, d_off: s.offset, scale: 1 },
        { src: words, dst: grads },
        grid1d(s.count, ku.overrides.WG ?? 64),
      ),
    );
    const check = makeOp(
      gpu,
      kc,
      'grads.fp16.overflow',
      { count: 2 * total, offset: 0 },
      { data: words, flag },
      grid1d(total, kc.overrides.WG ?? 64),
    );
    const rb = new Readback(gpu, 'grads.fp16.overflow.readback', 1);
    const roundTrip = await roundTripOps(gpu, grads, segments, flag, format);
    return new HalfGradients(gpu, segments, wordOffsets, words, flag, rb, pack, unpack, check, roundTrip, 1, format);
  }

  /** Words of segment k. */
  wordCount(k: number): number {
    return Math.ceil((this.segments[k]?.count ?? 0) / 2);
  }

  /** Records the packing of segment k's float32 gradients into halves. */
  recordPack(rec: Recorder, k: number): void {
    const op = this.pack[k];
    if (!op) throw new RangeError(`no gradient segment ${k}`);
    rec.dispatch(op);
  }

  /** Writes segment k's halves (e.g. after the all-reduce). */
  writeWords(k: number, data: Uint32Array, label: string): void {
    this.gpu.uploads.write(this.words, (this.wordOffsets[k] ?? 0) * 4, data, 'communication', label);
  }

  /**
   * Records the overflow check over every half and the unscaling (x 1/`lossScale`) back into the
   * float32 arena; readOverflow() then tells whether the step must be skipped. `check: false`: the
   * caller already knows (it checked every half on the host, as they were written back), so only
   * the unscaling is recorded and nothing waits for the GPU.
   */
  recordUnscale(rec: Recorder, lossScale: number, check = true): void {
    this.setInvScale(1 / lossScale);
    // bfloat16 has float32's range and no loss scale: nothing to check (DeepSpeed's bf16 skips no step)
    const flag = check && this.format === 'f16';
    if (flag) {
      rec.clear(this.flag);
      rec.dispatch(this.check);
    }
    for (const op of this.unpack) rec.dispatch(op);
    if (flag) this.flagReadback.record(rec, this.flag, 0, 1);
  }

  /** The overflow flag the check or-s into (a u32, nonzero: some half is inf or NaN). */
  get overflowFlag(): GPUBuffer {
    return this.flag;
  }

  /**
   * One worker whose steps the GPU decides (nothing sent): every gradient rounded to 16 bits and
   * back in place, the same values as packing, checking and unpacking without the pairs
   * (f16_round_trip.wgsl, bf16_round_trip.wgsl). fp16: checked into overflowFlag (nothing read
   * back) and unscaled, x 1/`lossScale` or, given a buffer slot, x the float32 the GPU wrote there
   * (copied into the round trip's Params first). bf16: no check, no scale.
   */
  recordRoundTrip(rec: Recorder, lossScale?: number | { readonly buffer: GPUBuffer; readonly offset: number }): void {
    if ((this.format === 'f16') !== (lossScale !== undefined))
      throw new Error(`${this.format} gradients ${this.format === 'f16' ? 'need' : 'have no'} loss scale`);
    const trip = this.roundTrip;
    if (trip.format === 'f16' && lossScale !== undefined) {
      // a static scale is written once; the GPU's is copied in every step
      const inv = typeof lossScale === 'number' ? 1 / lossScale : NaN;
      for (const op of trip.ops) {
        if (typeof lossScale !== 'number') {
          const at = op.paramSlot('scale');
          rec.copy(lossScale.buffer, lossScale.offset, at.buffer, at.offset, 4);
        } else if (inv !== this.tripInvScale) op.setParams({ scale: inv });
      }
      this.tripInvScale = inv;
      rec.clear(this.flag);
    }
    for (const op of trip.ops) rec.dispatch(op);
  }

  /** The 1/scale the fp16 round trip's Params hold from the host (NaN: none, or the GPU's). */
  private tripInvScale = NaN;

  private setInvScale(inv: number): void {
    if (inv !== this.invScale) {
      for (const op of this.unpack) op.setParams({ scale: inv });
      this.invScale = inv;
    }
  }

  /** Whether the halves unscaled by the last submitted recordUnscale held an inf or NaN. */
  async readOverflow(): Promise<boolean> {
    if (this.format !== 'f16') throw new Error('bf16 gradients have no overflow check');
    const f = await this.flagReadback.read(1);
    return new Uint32Array(f.buffer, f.byteOffset, 1)[0] !== 0;
  }

  destroy(): void {
    for (const op of [...this.pack, ...this.unpack, this.check, ...this.roundTrip.ops]) op.destroy();
    this.flagReadback.destroy();
    this.gpu.memory.destroy(this.words);
    this.gpu.memory.destroy(this.flag);
  }
}

/** The round trip's ops, by format. */
type RoundTrip =
  | { readonly format: 'f16'; readonly ops: readonly Op<'f16_round_trip'>[] }
  | { readonly format: 'bf16'; readonly ops: readonly Op<'bf16_round_trip'>[] };

/**
 * The round trip's ops over `segments`: one over their union where they tile one run of the arena
 * (DDP's buckets do), else one each.
 */
async function roundTripOps(
  gpu: Gpu,
  grads: GPUBuffer,
  segments: readonly GradSegment[],
  flag: GPUBuffer,
  format: HalfFormat,
): Promise<RoundTrip> {
  const runs = tiledRuns(segments);
  if (format === 'bf16') {
    const k = await gpu.kernels.get('bf16_round_trip');
    const ops = runs.map((r, i) =>
      makeOp(
        gpu,
        k,
        `grads.bf16.round_trip${i}`,
        { count: r.count, offset: r.offset },
        { data: grads },
        grid1d(r.count, k.overrides.WG ?? 64),
      ),
    );
    return { format, ops };
  }
  const k = await gpu.kernels.get('f16_round_trip');
  const ops = runs.map((r, i) =>
    makeOp(
      gpu,
      k,
      `grads.fp16.round_trip${i}`,
      { count: r.count, offset: r.offset, scale: 1 },
      { data: grads, flag },
      grid1d(r.count, k.overrides.WG ?? 64),
    ),
  );
  return { format, ops };
}

/** `segments` as one run where, in offset order, each starts where the one before ends; else each on its own. */
function tiledRuns(segments: readonly GradSegment[]): readonly GradSegment[] {
  const sorted = [...segments].sort((a, b) => a.offset - b.offset);
  let end = sorted[0]?.offset ?? 0;
  for (const s of sorted) {
    if (s.offset !== end) return sorted;
    end += s.count;
  }
  const first = sorted[0];
  return first ? [{ offset: first.offset, count: end - first.offset }] : [];
}
