// GPU time per phase from timestamp queries (where the adapter has 'timestamp-query'): each compute
// pass a Recorder opens gets a begin/end pair; read() sums the pass durations by phase name. A
// profiling Recorder also notes which kernels each phase ran (kernelsOf: what arithmetic a profiled
// kernel did, for `bench --profile`'s ceilings).
import type { Gpu } from './device.ts';
import type { KernelName } from './kernels.ts';
import { PassTimestamps } from './pass-timestamps.ts';

export class Timer {
  private readonly queries: PassTimestamps;
  private phases: string[] = [];
  private readonly kernels = new Map<string, Set<KernelName>>();

  constructor(gpu: Gpu, capacity = 64) {
    this.queries = new PassTimestamps(gpu, 'timer.queries', capacity);
  }

  /** The timestampWrites for the next pass of `phase`, or undefined when the timer is full. */
  writesFor(phase: string): GPUComputePassTimestampWrites | undefined {
    const k = this.phases.length;
    if (k >= this.queries.capacity) return undefined;
    this.phases.push(phase);
    return this.queries.writes(k);
  }

  /** Notes that phase `phase` dispatched `kernel`. */
  noteKernel(phase: string, kernel: KernelName): void {
    let set = this.kernels.get(phase);
    if (!set) this.kernels.set(phase, (set = new Set()));
    set.add(kernel);
  }

  /** The kernels phase `phase` dispatched in any step timed so far. */
  kernelsOf(phase: string): readonly KernelName[] {
    return [...(this.kernels.get(phase) ?? [])];
  }

  resolve(encoder: GPUCommandEncoder): void {
    this.queries.resolve(encoder, this.phases.length);
  }

  /** Milliseconds of GPU time per phase for the submitted step; resets for the next one. */
  async read(): Promise<Record<string, number>> {
    const phases = this.phases;
    this.phases = [];
    const out: Record<string, number> = {};
    if (phases.length === 0) return out;
    const t = await this.queries.read(phases.length);
    phases.forEach((p, k) => {
      const ns = Number((t[2 * k + 1] ?? 0n) - (t[2 * k] ?? 0n));
      out[p] = (out[p] ?? 0) + Math.max(0, ns) / 1e6;
    });
    return out;
  }

  destroy(): void {
    this.queries.destroy();
  }
}
