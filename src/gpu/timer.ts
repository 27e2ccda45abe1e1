// GPU time per phase from timestamp queries (where the adapter has 'timestamp-query'): each compute
// pass a Recorder opens gets a begin/end pair; read() sums the pass durations by phase name.
import type { Gpu } from './device.ts';

export class Timer {
  private readonly querySet: GPUQuerySet;
  private readonly resolveBuffer: GPUBuffer;
  private readonly readBuffer: GPUBuffer;
  private phases: string[] = [];

  constructor(
    private readonly gpu: Gpu,
    private readonly capacity = 64,
  ) {
    if (!gpu.hasTimestamps) throw new Error(`${gpu.label}: the adapter has no 'timestamp-query' feature`);
    const bytes = capacity * 2 * 8;
    this.querySet = gpu.device.createQuerySet({ label: 'timer.queries', type: 'timestamp', count: capacity * 2 });
    this.resolveBuffer = gpu.memory.createBuffer(gpu.device, {
      label: 'timer.resolve',
      size: bytes,
      category: 'other',
      usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC,
    });
    this.readBuffer = gpu.memory.createBuffer(gpu.device, {
      label: 'timer.read',
      size: bytes,
      category: 'other',
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
  }

  /** The timestampWrites for the next pass of `phase`, or undefined when the timer is full. */
  writesFor(phase: string): GPUComputePassTimestampWrites | undefined {
    const k = this.phases.length;
    if (k >= this.capacity) return undefined;
    this.phases.push(phase);
    return { querySet: this.querySet, beginningOfPassWriteIndex: 2 * k, endOfPassWriteIndex: 2 * k + 1 };
  }

  resolve(encoder: GPUCommandEncoder): void {
    const n = this.phases.length * 2;
    if (n === 0) return;
    encoder.resolveQuerySet(this.querySet, 0, n, this.resolveBuffer, 0);
    encoder.copyBufferToBuffer(this.resolveBuffer, 0, this.readBuffer, 0, n * 8);
  }

  /** Milliseconds of GPU time per phase for the submitted step; resets for the next one. */
  async read(): Promise<Record<string, number>> {
    const phases = this.phases;
    this.phases = [];
    const out: Record<string, number> = {};
    if (phases.length === 0) return out;
    await this.gpu.pending.track(this.readBuffer.mapAsync(GPUMapMode.READ, 0, phases.length * 16));
    const t = new BigUint64Array(this.readBuffer.getMappedRange(0, phases.length * 16).slice(0));
    this.readBuffer.unmap();
    phases.forEach((p, k) => {
      const ns = Number((t[2 * k + 1] ?? 0n) - (t[2 * k] ?? 0n));
      out[p] = (out[p] ?? 0) + Math.max(0, ns) / 1e6;
    });
    return out;
  }

  destroy(): void {
    this.querySet.destroy();
    this.gpu.memory.destroy(this.resolveBuffer);
    this.gpu.memory.destroy(this.readBuffer);
  }
}
