// GPU timestamps for a traced run (where the device has 'timestamp-query'): every compute pass a
// traced Recorder opens gets a begin/end pair in its slot's query set, tagged with the layer it
// belongs to; the Recorder's last submit resolves the slot, which is read back in one mapAsync and
// handed to the Tracer as raw GPU intervals (ns on the GPU's clock; the Tracer maps them onto the
// shared epoch clock). Without timestamps a trace falls back to submit/fence times, which on a
// fast GPU say little: Dawn in Node delivers a step's fences together, long after the work ran.
// Slots are pooled: a steady traced run allocates nothing per step; the device's destroy frees them.
import type { DeviceContext } from './device-context.ts';
import { PassTimestamps } from './pass-timestamps.ts';
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
  private readonly queries: PassTimestamps;
  private used = 0;
  private segmentStart = 0;
  private segments: Segment[] = [];

  constructor(gpu: DeviceContext) {
    this.queries = new PassTimestamps(gpu, 'trace.timestamps', PASSES);
  }

  /** The timestampWrites for the next pass, or undefined once the slot is full. */
  writes(): GPUComputePassTimestampWrites | undefined {
    return this.used < PASSES ? this.queries.writes(this.used++) : undefined;
  }

  /** The passes since the last segment are layer `name` of `step`, submitted at `submitMs`. */
  endSegment(name: string, step: number, submitMs: number): void {
    const first = this.segmentStart;
    const count = this.used - first;
    this.segmentStart = this.used;
    if (count > 0) this.segments.push({ name, step, submitMs, first, count });
  }

  /** Records into `encoder`, the Recorder's last, the resolve of every pass's timestamps. */
  resolve(encoder: GPUCommandEncoder): void {
    this.queries.resolve(encoder, this.used);
  }

  /** After the last segment's submit: each segment's GPU interval, then the slot is empty again. */
  async read(): Promise<RawGpuSpan[]> {
    const segments = this.segments;
    const pairs = this.used;
    this.segments = [];
    this.used = 0;
    this.segmentStart = 0;
    if (segments.length === 0) return [];
    const t = await this.queries.read(pairs);
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

  constructor(private readonly gpu: DeviceContext) {}

  acquire(): TimestampSlot {
    const slot = this.free.pop();
    if (slot) return slot;
    return new TimestampSlot(this.gpu);
  }

  release(slot: TimestampSlot): void {
    this.free.push(slot);
  }
}
