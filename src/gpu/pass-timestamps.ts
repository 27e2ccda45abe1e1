// A query set of begin/end timestamp pairs for compute passes, with the buffers that read them back:
// pass k writes pair k; resolve() records the copy of the first n pairs into the read buffer (after
// the passes, in the caller's last encoder) and read() maps it once. The bench's Timer (per phase)
// and a traced Recorder's slots (per layer, trace-timestamps.ts) both time passes with it.
import type { DeviceContext } from './device-context.ts';

export class PassTimestamps {
  private readonly querySet: GPUQuerySet;
  private readonly resolveBuffer: GPUBuffer;
  private readonly readBuffer: GPUBuffer;

  constructor(
    private readonly gpu: DeviceContext,
    label: string,
    /** Pairs (passes) it can hold. */
    readonly capacity: number,
  ) {
    if (!gpu.hasTimestamps) throw new Error(`${gpu.label}: the adapter has no 'timestamp-query' feature`);
    const bytes = capacity * 16;
    this.querySet = gpu.device.createQuerySet({ label, type: 'timestamp', count: capacity * 2 });
    const buffer = (suffix: string, usage: number) =>
      gpu.memory.createBuffer(gpu.device, { label: `${label}.${suffix}`, size: bytes, category: 'other', usage });
    this.resolveBuffer = buffer('resolve', GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC);
    this.readBuffer = buffer('read', GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
  }

  /** The timestampWrites of pair k. */
  writes(k: number): GPUComputePassTimestampWrites {
    return { querySet: this.querySet, beginningOfPassWriteIndex: 2 * k, endOfPassWriteIndex: 2 * k + 1 };
  }

  /** Records the resolve of the first `pairs` pairs into the read buffer (queries keep their values across submits). */
  resolve(encoder: GPUCommandEncoder, pairs: number): void {
    if (pairs === 0) return;
    encoder.resolveQuerySet(this.querySet, 0, 2 * pairs, this.resolveBuffer, 0);
    encoder.copyBufferToBuffer(this.resolveBuffer, 0, this.readBuffer, 0, 16 * pairs);
  }

  /** The first `pairs` pairs as [begin, end, begin, end, ...] ns, once the resolving submit has run. */
  async read(pairs: number): Promise<BigUint64Array> {
    await this.gpu.pending.track(this.readBuffer.mapAsync(GPUMapMode.READ, 0, pairs * 16));
    const t = new BigUint64Array(this.readBuffer.getMappedRange(0, pairs * 16).slice(0));
    this.readBuffer.unmap();
    return t;
  }

  destroy(): void {
    this.querySet.destroy();
    this.gpu.memory.destroy(this.resolveBuffer);
    this.gpu.memory.destroy(this.readBuffer);
  }
}
