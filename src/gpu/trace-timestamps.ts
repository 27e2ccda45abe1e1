// GPU timestamps for a traced run (where the device has 'timestamp-query'): every compute pass a
// traced Recorder opens gets a begin/end pair in its slot's query set, tagged with the layer it
// belongs to; the Recorder's last submit resolves the slot, which is read back in one mapAsync and
// handed to the Tracer as raw GPU intervals (ns on the GPU's clock; the Tracer maps them onto the
// shared epoch clock). Without timestamps a trace falls back to submit/fence times, which on a
// fast GPU say little: Dawn in Node delivers a step's fences together, long after the work ran.
// Slots are pooled: a steady traced run allocates nothing per step; the device's destroy frees them.
import type { Gpu } from './device.ts';
import type { RawGpuSpan } from '../trace/tracer.ts';

/** Passes one Recorder may time (a step has a few per layer); later passes go untimed. */
const PASSES = 256;

interface Segment {
  name: string;
  step: number;
  /** Epoch ms when the segment's encoder was submitted. */
  submitMs: number;
  first: number;
  count: number;
}

export class TimestampSlot {
  readonly querySet: GPUQuerySet;
  private readonly resolveBuffer: GPUBuffer;
  private readonly readBuffer: GPUBuffer;
  private used = 0;
  private segmentStart = 0;
  private segments: Segment[] = [];

  constructor(private readonly gpu: Gpu) {
    const bytes = PASSES * 2 * 8;
    this.querySet = gpu.device.createQuerySet({ label: 'trace.timestamps', type: 'timestamp', count: PASSES * 2 });
    this.resolveBuffer = gpu.memory.createBuffer(gpu.device, {
      label: 'trace.timestamps.resolve',
      size: bytes,
      category: 'other',
      usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC,
    });
    this.readBuffer = gpu.memory.createBuffer(gpu.device, {
      label: 'trace.timestamps.read',
      size: bytes,
      category: 'other',
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
  }

  /** The timestampWrites for the next pass, or undefined once the slot is full. */
  writes(): GPUComputePassTimestampWrites | undefined {
    if (this.used >= PASSES) return undefined;
    const k = this.used++;
    return { querySet: this.querySet, beginningOfPassWriteIndex: 2 * k, endOfPassWriteIndex: 2 * k + 1 };
  }

  /** The passes since the last segment are layer `name` of `step`, submitted at `submitMs`. */
  endSegment(name: string, step: number, submitMs: number): void {
    const first = this.segmentStart;
    const count = this.used - first;
    this.segmentStart = this.used;
    if (count > 0) this.segments.push({ name, step, submitMs, first, count });
  }

  /**
   * Records into `encoder`, the Recorder's last, the resolve of every pass's timestamps into the
   * read buffer (queries written by the earlier submits keep their values).
   */
  resolve(encoder: GPUCommandEncoder): void {
    if (this.used === 0) return;
    encoder.resolveQuerySet(this.querySet, 0, 2 * this.used, this.resolveBuffer, 0);
    encoder.copyBufferToBuffer(this.resolveBuffer, 0, this.readBuffer, 0, 16 * this.used);
  }

  /** After the last segment's submit: each segment's GPU interval, then the slot is empty again. */
  async read(): Promise<RawGpuSpan[]> {
    const segments = this.segments;
    const words = 2 * this.used;
    this.segments = [];
    this.used = 0;
    this.segmentStart = 0;
    if (segments.length === 0) return [];
    await this.gpu.pending.track(this.readBuffer.mapAsync(GPUMapMode.READ, 0, words * 8));
    const t = new BigUint64Array(this.readBuffer.getMappedRange(0, words * 8).slice(0));
    this.readBuffer.unmap();
    return segments.map((s) => {
      // the segment runs from its first pass's begin to its last pass's end
      const begin = t[2 * s.first] ?? 0n;
      const end = t[2 * (s.first + s.count - 1) + 1] ?? 0n;
      return { name: s.name, step: s.step, submitMs: s.submitMs, beginNs: begin, endNs: end < begin ? begin : end };
    });
  }
}

/** The device's free slots: a Recorder takes one when tracing starts its first pass. */
export class TimestampSlots {
  private readonly free: TimestampSlot[] = [];

  constructor(private readonly gpu: Gpu) {}

  acquire(): TimestampSlot {
    const slot = this.free.pop();
    if (slot) return slot;
    return new TimestampSlot(this.gpu);
  }

  release(slot: TimestampSlot): void {
    this.free.push(slot);
  }
}
