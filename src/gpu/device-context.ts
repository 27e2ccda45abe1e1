// What the parts of a Gpu (device.ts) need of it: the device, its label, the memory tracker, the
// promises in flight and the liveness check. Gpu has all of them; the parts it is built from
// (uploads, timestamp slots) and the buffer helpers take this instead, so device.ts, which builds
// them, is the only file that knows the whole Gpu.
import type { MemoryTracker } from './memory.ts';
import type { PendingGpuWork } from './pending.ts';

export interface DeviceContext {
  readonly device: GPUDevice;
  readonly label: string;
  readonly memory: MemoryTracker;
  readonly pending: PendingGpuWork;
  readonly hasTimestamps: boolean;
  /** Throws the DeviceLostError if the device is gone. */
  assertAlive(): void;
}
