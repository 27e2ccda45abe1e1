// Acquire a GPUDevice from any WebGPU implementation (navigator.gpu in a page or a worker, or
// Dawn's GPU object in Node, see device-node.ts) and wrap it with what the engine needs: a label,
// the memory tracker, the kernel cache, and device loss surfaced as an error naming the device.
import { DeviceLostError } from './errors.ts';
import { KernelCache } from './kernel-cache.ts';
import { MemoryTracker } from './memory.ts';
import { PendingGpuWork } from './pending.ts';
import { UploadPool } from './upload.ts';
import { NO_TRACE, type Tracer } from '../trace/tracer.ts';
import { TimestampSlots } from './trace-timestamps.ts';

export interface AdapterSummary {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  fallback: boolean;
  /** The adapter's subgroup sizes (0 where it does not say). */
  subgroupMinSize: number;
  subgroupMaxSize: number;
}

export interface AcquireOptions {
  /** Names the device in labels and errors, e.g. "rank 0". */
  label: string;
  powerPreference?: GPUPowerPreference;
}

/** Limits raised to the adapter's maximum: the engine's big activations and fused kernels need them. */
const RAISED_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupsPerDimension',
] as const;

export class Gpu {
  readonly memory = new MemoryTracker();
  /** mapAsync and pipeline promises in flight: dispose() waits for them (pending.ts says why). */
  readonly pending = new PendingGpuWork();
  readonly kernels: KernelCache;
  /** Hot-path uploads through mapped staging buffers (faster than queue.writeBuffer). */
  readonly uploads: UploadPool;
  /** Set once the device is lost; every later use throws it. */
  lostError: DeviceLostError | null = null;
  /** Times this device's submits when tracing is on (src/trace). */
  tracer: Tracer = NO_TRACE;
  /** Timestamp query slots of traced Recorders (trace-timestamps.ts). */
  readonly traceSlots = new TimestampSlots(this);
  private destroyed = false;

  /**
   * `instance` is the GPU object the device came from, held so it lives as long as the device.
   * `owner` false: a view of a device another Gpu owns (ranks sharing one device, view()): its own
   * kernel cache, uploads and memory tracker; destroy() frees its buffers, not the device.
   */
  constructor(
    readonly device: GPUDevice,
    readonly label: string,
    readonly adapter: AdapterSummary,
    readonly instance?: GPU,
    readonly owner = true,
  ) {
    this.kernels = new KernelCache(device, label, this.pending);
    this.uploads = new UploadPool(this);
    void device.lost.then((info) => {
      if (!this.destroyed) this.lostError = new DeviceLostError(label, info.reason, info.message);
    });
  }

  get hasTimestamps(): boolean {
    return this.device.features.has('timestamp-query');
  }

  /** The fixed subgroup size where the device has subgroups and one size for all of them, else 0. */
  get subgroupSize(): number {
    const { subgroupMinSize: lo, subgroupMaxSize: hi } = this.adapter;
    return this.device.features.has('subgroups') && lo > 0 && lo === hi ? lo : 0;
  }

  /** Throws the DeviceLostError if the device is gone. Call before recording work. */
  assertAlive(): void {
    if (this.lostError) throw this.lostError;
    if (this.destroyed) throw new DeviceLostError(this.label, 'destroyed', 'the device was destroyed by this program');
  }

  /** Frees every tracked buffer and destroys the device (a view: only its own buffers). */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.uploads.destroy();
    this.memory.destroyAll();
    if (this.owner) this.device.destroy();
  }

  /** Another Gpu on this device, for a rank sharing it: its own allocations, the same queue. */
  view(label: string): Gpu {
    return new Gpu(this.device, label, this.adapter, this.instance, false);
  }

  /**
   * Destroys the device and waits (up to `ms`) until every GPU promise in flight on it has settled:
   * call it before the thread that owns the device ends (pending.ts). True when all settled.
   */
  async dispose(ms = 5000): Promise<boolean> {
    this.destroy();
    return this.pending.drain(ms);
  }
}

export async function acquireDevice(gpu: GPU, opts: AcquireOptions): Promise<Gpu> {
  const adapter = await gpu.requestAdapter(
    opts.powerPreference ? { powerPreference: opts.powerPreference } : undefined,
  );
  if (!adapter) {
    throw new Error(
      `${opts.label}: no WebGPU adapter is available (navigator.gpu.requestAdapter() returned null). ` +
        'In Chromium enable WebGPU (chrome://flags/#enable-unsafe-webgpu) or, without a GPU, start it with --enable-unsafe-swiftshader.',
    );
  }
  const requiredLimits: Record<string, number> = {};
  for (const k of RAISED_LIMITS) requiredLimits[k] = adapter.limits[k];
  // Timestamps for the profiler; subgroups for the kernels that have a subgroup variant (tuning.ts).
  const requiredFeatures = (['timestamp-query', 'subgroups'] as const).filter((f) => adapter.features.has(f));
  const device = await adapter.requestDevice({ label: opts.label, requiredLimits, requiredFeatures });
  const info = adapter.info;
  const summary: AdapterSummary = {
    vendor: info.vendor,
    architecture: info.architecture,
    device: info.device,
    description: info.description,
    fallback: info.isFallbackAdapter || info.architecture === 'swiftshader',
    subgroupMinSize: info.subgroupMinSize ?? 0,
    subgroupMaxSize: info.subgroupMaxSize ?? 0,
  };
  return new Gpu(device, opts.label, summary, gpu);
}
