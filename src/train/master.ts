// fp16 mixed precision's float32 master copy (DeepSpeed's fp32 master weights): the optimizer
// updates it, counted as optimizer state, and after each step it is cast into the fp16 parameters
// the layers read (packed halves, two per u32 word, from the slice's first word).
import { readFloats, storageBuffer, writeFloats } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import type { Recorder } from '../gpu/recorder.ts';
import { HALF_CODECS, type HalfFormat } from './half-format.ts';

export class Fp32Master {
  private constructor(
    private readonly gpu: Gpu,
    readonly buffer: GPUBuffer,
    /** The fp16 parameters (all of them, packed). */
    private readonly halves: GPUBuffer,
    /** First element of the slice in the full parameter arena. */
    readonly offset: number,
    readonly count: number,
    private readonly cast: Op,
  ) {}

  /** The master of elements [offset, offset + count) whose halves live in `halves` (offset must be even). */
  static async create(
    gpu: Gpu,
    halves: GPUBuffer,
    offset: number,
    count: number,
    format: HalfFormat = 'f16',
  ): Promise<Fp32Master> {
    if (offset % 2 !== 0)
      throw new RangeError(
        `${HALF_CODECS[format].name}: the optimizer's slice must start at an even element (got ${offset})`,
      );
    const buffer = storageBuffer(gpu, 'params.fp32_master', count * 4, 'optimizer');
    const k = await gpu.kernels.get(HALF_CODECS[format].packKernel);
    const cast = makeOp(
      gpu,
      k,
      'params.fp32_master.cast',
      { count, s_off: 0, d_off: offset / 2, scale: 1 },
      { src: buffer, dst: halves },
      grid1d(Math.ceil(count / 2), k.overrides.WG ?? 64),
    );
    return new Fp32Master(gpu, buffer, halves, offset, count, cast);
  }

  /** Sets the master from the full parameter vector `flat` (its slice, at full precision). */
  write(flat: Float32Array): void {
    writeFloats(this.gpu, this.buffer, 0, flat.subarray(this.offset, this.offset + this.count));
  }

  /** Sets every fp16 parameter (ZeRO's all-gathered halves), `words` packed as pack2x16float does; not the master. */
  writeHalves(words: Uint32Array): void {
    if (words.byteLength !== this.halves.size)
      throw new Error(`expected ${this.halves.size / 4} words of fp16 parameters, got ${words.length}`);
    this.gpu.uploads.write(this.halves, 0, words, 'communication', 'params.fp16');
  }

  read(): Promise<Float32Array<ArrayBuffer>> {
    return readFloats(this.gpu, this.buffer);
  }

  /** Records the cast of the (updated) master into the fp16 parameters. */
  recordCast(rec: Recorder): void {
    rec.dispatch(this.cast);
  }

  destroy(): void {
    this.cast.destroy();
    this.gpu.memory.destroy(this.buffer);
  }
}
