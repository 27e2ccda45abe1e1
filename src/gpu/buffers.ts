// Buffer helpers: storage buffers from data, and readback through a MAP_READ staging buffer.
import type { DeviceContext } from './device-context.ts';
import type { MemoryCategory } from '../memory-categories.ts';

/** A storage buffer of `bytes` (rounded up to 4), zero-filled, counted under `category`. */
export function storageBuffer(gpu: DeviceContext, label: string, bytes: number, category: MemoryCategory): GPUBuffer {
  // (GPUBufferUsage is read here, not at module load: in Node it exists only once Dawn is loaded.)
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  return gpu.memory.createBuffer(gpu.device, { label, size: Math.max(4, Math.ceil(bytes / 4) * 4), usage, category });
}

/**
 * queue.writeBuffer of `data` into `dst` at byte `offset`: for one-off writes (parameters at
 * start-up or from a replica); hot paths use the upload pool (gpu.uploads).
 */
export function writeFloats(
  gpu: DeviceContext,
  dst: GPUBuffer,
  offset: number,
  data: Float32Array | Int32Array | Uint32Array,
): void {
  gpu.device.queue.writeBuffer(dst, offset, data.buffer, data.byteOffset, data.byteLength);
}

/** A storage buffer holding `data`. */
export function bufferFrom(
  gpu: DeviceContext,
  label: string,
  data: Float32Array | Int32Array | Uint32Array,
  category: MemoryCategory,
): GPUBuffer {
  const b = storageBuffer(gpu, label, data.byteLength, category);
  writeFloats(gpu, b, 0, data);
  return b;
}

/**
 * Copies `bytes` from `src` at `offset` into a fresh staging buffer and reads them back. For tests,
 * checkpoints and one-off reads; hot paths keep their own staging buffers.
 */
export async function readBuffer(
  gpu: DeviceContext,
  src: GPUBuffer,
  offset = 0,
  bytes = src.size - offset,
): Promise<ArrayBuffer> {
  gpu.assertAlive();
  const size = Math.ceil(bytes / 4) * 4;
  const staging = gpu.memory.createBuffer(gpu.device, {
    label: `${src.label}.readback`,
    size,
    category: 'communication',
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });
  try {
    const enc = gpu.device.createCommandEncoder({ label: `${src.label}.readback` });
    enc.copyBufferToBuffer(src, offset, staging, 0, size);
    gpu.device.queue.submit([enc.finish()]);
    await gpu.pending.track(staging.mapAsync(GPUMapMode.READ));
    gpu.assertAlive();
    const out = staging.getMappedRange().slice(0, bytes);
    staging.unmap();
    return out;
  } finally {
    gpu.memory.destroy(staging);
  }
}

export async function readFloats(
  gpu: DeviceContext,
  src: GPUBuffer,
  offsetFloats = 0,
  count?: number,
): Promise<Float32Array<ArrayBuffer>> {
  const bytes = count === undefined ? src.size - offsetFloats * 4 : count * 4;
  return new Float32Array(await readBuffer(gpu, src, offsetFloats * 4, bytes));
}
