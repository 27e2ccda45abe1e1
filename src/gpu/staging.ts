// A small pool of MAP_READ staging buffers for per-step readbacks (loss, accuracy, norms). A buffer
// is busy from the copy into it until its data has been read, so steps can be in flight at once.
import type { Gpu } from './device.ts';
import { mapRead } from './readback.ts';

export class StagingPool {
  private readonly free: GPUBuffer[] = [];
  private readonly all: GPUBuffer[] = [];

  constructor(
    private readonly gpu: Gpu,
    private readonly label: string,
    private readonly bytes: number,
  ) {}

  /** A staging buffer to copy into; give it back with read(). */
  take(): GPUBuffer {
    const b =
      this.free.pop() ??
      this.gpu.memory.createBuffer(this.gpu.device, {
        label: `${this.label}.${this.all.length}`,
        size: this.bytes,
        category: 'communication',
        usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
      });
    if (!this.all.includes(b)) this.all.push(b);
    return b;
  }

  /** Maps `buffer` after the work copying into it was submitted, copies its bytes out, and frees it. */
  async read(buffer: GPUBuffer): Promise<ArrayBuffer> {
    const out = await mapRead(this.gpu, buffer);
    this.free.push(buffer);
    return out;
  }

  destroy(): void {
    for (const b of this.all) this.gpu.memory.destroy(b);
    this.all.length = 0;
    this.free.length = 0;
  }
}
