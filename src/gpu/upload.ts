// Uploads through MAP_WRITE staging buffers, a drop-in for queue.writeBuffer on the hot paths
// (each step's batch, DDP's reduced buckets, ZeRO's gradient slices, DataParallel's scatter).
// On the H200 (Dawn, Vulkan) writeBuffer moved a 6.3 MB batch at about 2.7 GB/s; copying into a
// mapped staging buffer and recording a buffer-to-buffer copy took a quarter of the time.
//
// write() is synchronous and submits its copy at once, so it is ordered on the queue exactly as
// writeBuffer would be: after everything submitted before it, before everything submitted after.
// A staging buffer is busy from that submit until it is mapped again; a free one of the same size
// (and memory category) is reused, else a new one is created already mapped, so a write never
// waits for the GPU. The pool keeps about as many buffers per size as uploads are in flight.
// stage() fills a staging buffer for a copy the caller records into its own encoder instead (the
// batched step of ranks sharing a device: every rank's batch in one buffer, copied in the step's
// own submit).
import type { DeviceContext } from './device-context.ts';
import type { MemoryCategory } from '../memory-categories.ts';

/** Bytes staged for a copy the caller records (UploadPool.stage). */
export interface StagedUpload {
  readonly buffer: GPUBuffer;
  readonly bytes: number;
  /** The recording that copies from `buffer` is submitted. */
  submitted(): void;
}

export class UploadPool {
  /** Mapped, ready-to-fill buffers by `${category}:${bytes}`. */
  private readonly free = new Map<string, GPUBuffer[]>();
  private readonly all = new Set<GPUBuffer>();
  private count = 0;

  constructor(private readonly gpu: DeviceContext) {}

  /** Staging buffers alive now (free or in flight), for tests. */
  get size(): number {
    return this.all.size;
  }

  /**
   * Copies `data` into `dst` at byte `offset`, like queue.writeBuffer(dst, offset, data). The
   * byte length and the offset must be multiples of 4 (copyBufferToBuffer's rule).
   */
  write(dst: GPUBuffer, offset: number, data: ArrayBufferView, category: MemoryCategory, label = dst.label): void {
    if (data.byteLength % 4 !== 0 || offset % 4 !== 0)
      throw new RangeError(
        `upload to ${label}: ${data.byteLength} bytes at offset ${offset}; both must be multiples of 4`,
      );
    if (data.byteLength === 0) return;
    const staged = this.stage([data], category, label);
    const enc = this.gpu.device.createCommandEncoder({ label: `${label}.upload` });
    enc.copyBufferToBuffer(staged.buffer, 0, dst, offset, staged.bytes);
    this.gpu.device.queue.submit([enc.finish()]);
    staged.submitted();
  }

  /**
   * `parts` laid end to end in a staging buffer, for a recording of the caller's to copy from (no
   * submit of its own: the copy runs in order with the caller's work). Each part's byte length must
   * be a multiple of 4. Call `submitted()` once that recording is submitted: the buffer returns to
   * the pool when the GPU is done with it.
   */
  stage(parts: readonly ArrayBufferView[], category: MemoryCategory, label: string): StagedUpload {
    let bytes = 0;
    for (const p of parts) {
      if (p.byteLength % 4 !== 0)
        throw new RangeError(`upload to ${label}: a part of ${p.byteLength} bytes; each must be a multiple of 4`);
      bytes += p.byteLength;
    }
    if (bytes === 0) throw new RangeError(`upload to ${label}: nothing to stage`);
    this.gpu.assertAlive();
    const key = `${category}:${bytes}`;
    const staging = this.free.get(key)?.pop() ?? this.create(bytes, category, label);
    const mapped = new Uint8Array(staging.getMappedRange(0, bytes));
    let at = 0;
    for (const p of parts) {
      mapped.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), at);
      at += p.byteLength;
    }
    staging.unmap();
    return {
      buffer: staging,
      bytes,
      submitted: () => this.recycle(staging, key),
    };
  }

  /** Back to the pool once the copies from it have run; a lost or destroyed device leaves it to destroy(). */
  private recycle(staging: GPUBuffer, key: string): void {
    this.gpu.pending.track(staging.mapAsync(GPUMapMode.WRITE)).then(
      () => {
        if (!this.all.has(staging)) return;
        const list = this.free.get(key) ?? [];
        list.push(staging);
        this.free.set(key, list);
      },
      () => {
        /* destroyed, or the device is gone: assertAlive() reports that on the next call */
      },
    );
  }

  /** Destroys every staging buffer (in flight or free). */
  destroy(): void {
    for (const b of this.all) this.gpu.memory.destroy(b);
    this.all.clear();
    this.free.clear();
  }

  private create(bytes: number, category: MemoryCategory, label: string): GPUBuffer {
    const b = this.gpu.memory.createBuffer(this.gpu.device, {
      label: `upload.${label}.${this.count++}`,
      size: bytes,
      category,
      mappedAtCreation: true,
      usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC,
    });
    this.all.add(b);
    return b;
  }
}
