// Records a step's work into one GPUCommandEncoder: dispatches go into a compute pass that stays
// open across layers; copies and clears close it. Phases (forward, backward, optimizer) start new
// passes so a Timer can put timestamps around them. Submit once at the end.
import type { Gpu } from './device.ts';
import type { Op } from './op.ts';
import type { Timer } from './timer.ts';

export class Recorder {
  encoder: GPUCommandEncoder;
  private pass: GPUComputePassEncoder | null = null;
  private phaseName: string;
  dispatches = 0;

  /**
   * With `profile`, every dispatch gets its own timed pass named after its Op (per-kernel GPU
   * time from the Timer; slower, for benchmarks only).
   */
  constructor(
    readonly gpu: Gpu,
    label: string,
    private readonly timer: Timer | null = null,
    private readonly profile = false,
  ) {
    gpu.assertAlive();
    this.encoder = gpu.device.createCommandEncoder({ label });
    this.phaseName = label;
  }

  /** Starts a new named phase (a new compute pass, timed when a Timer is attached). */
  phase(name: string): void {
    this.endPass();
    this.phaseName = name;
  }

  dispatch(op: Op): void {
    if (this.profile) this.phase(op.label);
    const pass = this.openPass();
    pass.setPipeline(op.kernel.pipeline);
    pass.setBindGroup(0, op.bindGroup);
    const [x, y, z] = op.workgroups;
    if (x > 0 && y > 0 && z > 0) pass.dispatchWorkgroups(x, y, z);
    this.dispatches++;
  }

  copy(src: GPUBuffer, srcOffset: number, dst: GPUBuffer, dstOffset: number, size: number): void {
    this.endPass();
    this.encoder.copyBufferToBuffer(src, srcOffset, dst, dstOffset, size);
  }

  clear(buffer: GPUBuffer, offset = 0, size?: number): void {
    this.endPass();
    this.encoder.clearBuffer(buffer, offset, size);
  }

  /** Finishes the encoder and submits it: one queue.submit for everything recorded. */
  submit(): void {
    this.endPass();
    this.timer?.resolve(this.encoder);
    this.gpu.device.queue.submit([this.encoder.finish()]);
    this.gpu.tracer.submitted(this.phaseName, this.gpu.device.queue);
  }

  /**
   * The work recorded since the last layer() or submit() is layer `name`. When tracing, it is
   * submitted now (its own GPU span on the timeline) and recording goes on in a new encoder;
   * otherwise nothing happens.
   */
  layer(name: string): void {
    if (!this.gpu.tracer.on) return;
    this.endPass();
    this.gpu.device.queue.submit([this.encoder.finish()]);
    this.gpu.tracer.submitted(name, this.gpu.device.queue);
    this.encoder = this.gpu.device.createCommandEncoder({ label: name });
  }

  private openPass(): GPUComputePassEncoder {
    if (!this.pass) {
      const timestampWrites = this.timer?.writesFor(this.phaseName);
      this.pass = this.encoder.beginComputePass({
        label: this.phaseName,
        ...(timestampWrites ? { timestampWrites } : {}),
      });
    }
    return this.pass;
  }

  private endPass(): void {
    this.pass?.end();
    this.pass = null;
  }
}
