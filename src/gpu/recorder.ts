// Records a step's work into one GPUCommandEncoder: dispatches go into a compute pass that stays
// open across layers; copies and clears close it. Phases (forward, backward, optimizer) start new
// passes so a Timer can put timestamps around them. Submit once at the end. When the run traces,
// each layer is submitted on its own and timed by GPU timestamps where the device has them
// (trace-timestamps.ts), else by its submit and fence.
import { epochMs } from '../trace/tracer.ts';
import type { Gpu } from './device.ts';
import { paramOffset, type Op } from './op.ts';
import type { Timer } from './timer.ts';
import type { TimestampSlot } from './trace-timestamps.ts';

/**
 * Decides on the GPU whether dispatches run (fp16's loss scaler on the GPU: an overflowing step's
 * optimizer). Each op gated through it gets the word `run` (1 or 0, written by the GPU before it)
 * copied into its Params field `run` ahead of its dispatch, and the word `one` after it; its kernel
 * does nothing at 0. (Not an indirect dispatch: Dawn validates each of those with a dispatch of its
 * own, about 0.6 ms of GPU time on an H100: bench/indirect-dispatch.mjs.)
 */
export interface DispatchGate {
  readonly run: { readonly buffer: GPUBuffer; readonly offset: number };
  readonly one: { readonly buffer: GPUBuffer; readonly offset: number };
}

export class Recorder {
  encoder: GPUCommandEncoder;
  private pass: GPUComputePassEncoder | null = null;
  /** The open pass's current pipeline: a dispatch of the same kernel sets only its bind group. */
  private pipeline: GPUComputePipeline | null = null;
  private phaseName: string;
  /** The traced layers' timestamps, taken at the first pass of a traced run on a timed device. */
  private slot: TimestampSlot | null = null;
  dispatches = 0;
  /** While set (gated()), each dispatch runs only where it says so. */
  private gate: DispatchGate | null = null;
  /** Called once the recording is submitted (staging buffers it copies from go back to their pool). */
  private readonly onSubmit: (() => void)[] = [];

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
    if (this.profile) {
      this.phase(op.label);
      this.timer?.noteKernel(op.label, op.kernel.name);
    }
    const gate = this.gate;
    const run = gate ? paramOffset(op.kernel.name, 'run') : 0;
    if (gate) this.copy(gate.run.buffer, gate.run.offset, op.paramsBuffer, run, 4);
    const pass = this.openPass();
    if (this.pipeline !== op.kernel.pipeline) {
      pass.setPipeline(op.kernel.pipeline);
      this.pipeline = op.kernel.pipeline;
    }
    pass.setBindGroup(0, op.bindGroup);
    const [x, y, z] = op.workgroups;
    if (x > 0 && y > 0 && z > 0) pass.dispatchWorkgroups(x, y, z);
    this.dispatches++;
    // the op runs again outside the gate (its Params as the host wrote them)
    if (gate) this.copy(gate.one.buffer, gate.one.offset, op.paramsBuffer, run, 4);
  }

  /** Records `fn`'s dispatches gated by `gate` (each runs only where the GPU says so). */
  gated(gate: DispatchGate, fn: () => void): void {
    if (this.gate) throw new Error('gated(): already inside a gate');
    this.gate = gate;
    try {
      fn();
    } finally {
      this.gate = null;
    }
  }

  copy(src: GPUBuffer, srcOffset: number, dst: GPUBuffer, dstOffset: number, size: number): void {
    this.endPass();
    this.encoder.copyBufferToBuffer(src, srcOffset, dst, dstOffset, size);
  }

  /** Calls `fn` once this recording is submitted (submitted()): e.g. a staging buffer its copies read is free to reuse. */
  afterSubmit(fn: () => void): void {
    this.onSubmit.push(fn);
  }

  clear(buffer: GPUBuffer, offset = 0, size?: number): void {
    this.endPass();
    this.encoder.clearBuffer(buffer, offset, size);
  }

  /** Finishes the encoder and submits it: one queue.submit for everything recorded. */
  submit(): void {
    this.endPass();
    this.timer?.resolve(this.encoder);
    this.submitTraced(this.phaseName, true);
    this.submitted();
    const slot = this.slot;
    if (!slot) return;
    this.slot = null;
    this.gpu.tracer.gpuTimed(slot.read().finally(() => this.gpu.traceSlots.release(slot)));
  }

  /**
   * Whether submit() must be used (a traced run, timed layer by layer, or a Timer's timestamps to
   * resolve); otherwise finish() hands the recording to a caller that submits it with others.
   */
  get submitsItself(): boolean {
    return this.gpu.tracer.on || this.timer !== null;
  }

  /** The recording is submitted (by submit(), or by the caller of finish()): runs the afterSubmit callbacks. */
  submitted(): void {
    for (const fn of this.onSubmit.splice(0)) fn();
  }

  /**
   * Finishes the encoder for a queue.submit together with other recordings (not when
   * submitsItself); the caller calls submitted() once it is submitted.
   */
  finish(): GPUCommandBuffer {
    if (this.submitsItself) throw new Error(`${this.phaseName}: a traced or timed recording submits itself`);
    this.endPass();
    return this.encoder.finish();
  }

  /**
   * The work recorded since the last layer() or submit() is layer `name`. When tracing, it is
   * submitted now (its own GPU span on the timeline) and recording goes on in a new encoder;
   * otherwise nothing happens.
   */
  layer(name: string): void {
    if (!this.gpu.tracer.on) return;
    this.endPass();
    this.submitTraced(name);
    this.encoder = this.gpu.device.createCommandEncoder({ label: name });
  }

  /** Submits the encoder; a traced run times its passes as `name` (timestamps, else the fence). */
  private submitTraced(name: string, last = false): void {
    const tracer = this.gpu.tracer;
    this.slot?.endSegment(name, tracer.step, epochMs());
    if (last) this.slot?.resolve(this.encoder);
    this.gpu.device.queue.submit([this.encoder.finish()]);
    // on a device with timestamps, work with no compute pass (copies only) is left off the GPU lane
    if (!this.timesPasses) tracer.submitted(name, this.gpu.device.queue);
  }

  /** Whether traced passes get GPU timestamps (a bench Timer, when attached, has the pass's writes). */
  private get timesPasses(): boolean {
    return this.gpu.tracer.on && this.gpu.hasTimestamps && !this.timer;
  }

  private openPass(): GPUComputePassEncoder {
    if (!this.pass) {
      if (this.timesPasses) this.slot ??= this.gpu.traceSlots.acquire();
      const timestampWrites = this.slot ? this.slot.writes() : this.timer?.writesFor(this.phaseName);
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
    this.pipeline = null;
  }
}
