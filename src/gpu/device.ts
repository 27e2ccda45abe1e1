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
  /**
   * The adapter's f16 x f16 -> f32 subgroup-matrix shapes ('MxNxK', `adapter.info.subgroupMatrixConfigs`,
   * only where it offers `chromium-experimental-subgroup-matrix`); absent or empty: none.
   */
  halfMatrixShapes?: readonly string[];
}

/** One entry of `adapter.info.subgroupMatrixConfigs` (chromium-experimental-subgroup-matrix). */
interface SubgroupMatrixConfig {
  readonly componentType?: string;
  readonly resultComponentType?: string;
  readonly M?: number;
  readonly N?: number;
  readonly K?: number;
}

/** The f16 x f16 -> f32 shapes among an adapter's subgroup-matrix configs, as 'MxNxK'. */
export function halfMatrixShapes(info: GPUAdapterInfo): string[] {
  const configs = (info as GPUAdapterInfo & { subgroupMatrixConfigs?: readonly SubgroupMatrixConfig[] })
    .subgroupMatrixConfigs;
  return [...(configs ?? [])]
    .filter((c) => c.componentType === 'f16' && c.resultComponentType === 'f32')
    .map((c) => `${c.M}x${c.N}x${c.K}`);
}

/** The features a device asks for where its adapter has them (timestamps, subgroups, half arithmetic). */
const WANTED_FEATURES = [
  'timestamp-query',
  'subgroups',
  'shader-f16',
  'chromium-experimental-subgroup-matrix',
] as const;

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

  /**
   * Whether the f16 subgroup-matrix kernels (`*_sgmat`: f16 x f16 -> f32 16x16x16 tiles, one
   * subgroup per workgroup) run here: the device has shader-f16 and
   * chromium-experimental-subgroup-matrix, the adapter the 16x16x16 shape, and subgroups of 32
   * (the kernels' workgroups are four subgroups of 32).
   */
  get halfMatrix(): boolean {
    const f = this.device.features;
    return (
      f.has('shader-f16') &&
      f.has('chromium-experimental-subgroup-matrix') &&
      (this.adapter.halfMatrixShapes ?? []).includes('16x16x16') &&
      this.subgroupSize === 32
    );
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
  // Timestamps for the profiler; subgroups, shader-f16 and subgroup matrices for the kernels that
  // have such a variant (tuning.ts).
  const requiredFeatures = WANTED_FEATURES.filter((f) => adapter.features.has(f)) as GPUFeatureName[];
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
    halfMatrixShapes: adapter.features.has('chromium-experimental-subgroup-matrix') ? halfMatrixShapes(info) : [],
  };
  return new Gpu(device, opts.label, summary, gpu);
}
