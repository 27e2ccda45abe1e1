// Reading GPU data back: a MAP_READ staging buffer that a recording copies into, read once the
// copy has been submitted. The parallel modes read gradient buckets, partitions and logits this
// way; the staging buffers count as communication memory (PyTorch's bucket buffers are device
// memory too).
import type { Gpu } from './device.ts';
import type { Recorder } from './recorder.ts';

/** Maps a MAP_READ buffer whose copy was submitted and returns a copy of its first `bytes`. */
export function mapRead(gpu: Gpu, buffer: GPUBuffer, bytes = buffer.size): Promise<ArrayBuffer> {
  return withMapped(gpu, buffer, bytes, (range) => range.slice(0));
}

/** Maps the first `bytes` of a MAP_READ buffer whose copy was submitted, hands them to `use`, unmaps. */
async function withMapped<T>(gpu: Gpu, buffer: GPUBuffer, bytes: number, use: (range: ArrayBuffer) => T): Promise<T> {
  try {
    await gpu.pending.track(buffer.mapAsync(GPUMapMode.READ, 0, bytes));
  } catch (e) {
    gpu.assertAlive();
    throw e;
  }
  try {
    return use(buffer.getMappedRange(0, bytes));
  } finally {
    buffer.unmap();
  }
}

/** A staging buffer of `floats` elements for one readback in flight at a time. */
export class Readback {
  readonly buffer: GPUBuffer;

  constructor(
    private readonly gpu: Gpu,
    label: string,
    readonly floats: number,
  ) {
    this.buffer = gpu.memory.createBuffer(gpu.device, {
      label,
      size: Math.max(4, floats * 4),
      category: 'communication',
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
  }

  /** Records a copy of `count` floats of `src` from element `offset` into this buffer at element `at`. */
  record(rec: Recorder, src: GPUBuffer, offset: number, count: number, at = 0): void {
    rec.copy(src, offset * 4, this.buffer, at * 4, count * 4);
  }

  /** The first `count` floats, once the recording that copies them has been submitted. */
  async read(count: number): Promise<Float32Array> {
    return new Float32Array(await mapRead(this.gpu, this.buffer, count * 4));
  }

  /** The host array readInto() fills, made on its first use. */
  private host: Float32Array | null = null;

  /**
   * As read(), into one host array this Readback keeps: the same memory on every call, overwritten
   * by the next. For a readback repeated every step (a gradient bucket), where a fresh array of
   * megabytes a step would keep the garbage collector busy.
   */
  readInto(count: number): Promise<Float32Array> {
    const view = (this.host ??= new Float32Array(this.floats)).subarray(0, count);
    return withMapped(this.gpu, this.buffer, count * 4, (range) => {
      view.set(new Float32Array(range));
      return view;
    });
  }

  destroy(): void {
    this.gpu.memory.destroy(this.buffer);
  }
}
