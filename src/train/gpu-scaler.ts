// fp16's loss scaler on the GPU (shaders/loss_scaler.wgsl), for a worker whose steps are pipelined:
// the step's overflow flag never waits for the host. Before the loss gradient, `prepare` turns the
// scale (a power of two, kept as its exponent) into the loss gradient's factor and the unscale's
// 1/scale, copied into those ops' Params; after the overflow check, `update` runs DeepSpeed's
// update_scale, and when the step is taken counts the optimizer step t and picks the optimizer's
// Params for t from the candidates the host wrote (t is one of the next few: steps in flight may
// still skip), while the clipping, the optimizer and the master's cast read whether the step is
// taken from their Params' `run` (Recorder.gated copies the word in; the kernels do nothing at 0).
// No indirect dispatch: Dawn validates each one with a dispatch of its own, about 0.6 ms of GPU
// time apiece on an H100 (bench/indirect-dispatch.mjs). The state is copied out with each step;
// the host replays its own LossScaler with the flags as they come back and checks that both agree.
import type { Gpu } from '../gpu/device.ts';
import { makeOp, type Op } from '../gpu/op.ts';
import type { DispatchGate, Recorder } from '../gpu/recorder.ts';

/** The scaler's configuration as the kernel takes it: a static scale only skips; a dynamic one is DeepSpeed's. */
export interface GpuScalerConfig {
  readonly dynamic: boolean;
  readonly hysteresis: number;
  readonly consecutiveHysteresis: boolean;
  readonly scaleWindow: number;
  /** log2 of min_loss_scale (a power of two). */
  readonly minExp: number;
}

/** The GPU's state after a step, as copied out with it. */
export interface GpuScalerState {
  /** log2 of the scale the next step uses. */
  readonly exp: number;
  readonly iter: number;
  readonly lastOverflowIter: number;
  readonly hysteresis: number;
  /** Optimizer steps taken. */
  readonly optimizerSteps: number;
  /** 1: overflow at min_loss_scale (DeepSpeed raises); 2: a step outside the candidates. */
  readonly error: number;
  readonly skipped: boolean;
  /** log2 of the scale this step's loss gradient used. */
  readonly expUsed: number;
}

const STATE_WORDS = 16;
/** The state words the gated dispatches' `run` is copied from: taken (1 or 0), and a constant 1. */
const TAKEN_WORD = 10;
const ONE_WORD = 11;
/** Candidate steps at most: the steps in flight plus one. */
export const MAX_CANDIDATES = 16;
/** The optimizer's Params block at most (bytes). */
const MAX_BLOCK = 256;

export class GpuLossScaler implements DispatchGate {
  /** DispatchGate: whether the step is taken, and a 1 to put back. */
  readonly run: { readonly buffer: GPUBuffer; readonly offset: number };
  readonly one: { readonly buffer: GPUBuffer; readonly offset: number };

  private constructor(
    private readonly gpu: Gpu,
    private readonly state: GPUBuffer,
    private readonly candidates: GPUBuffer,
    private readonly selected: GPUBuffer,
    private readonly prepare: Op<'loss_scaler'>,
    private readonly update: Op<'loss_scaler'>,
    private readonly dynamic: boolean,
  ) {
    this.run = { buffer: state, offset: TAKEN_WORD * 4 };
    this.one = { buffer: state, offset: ONE_WORD * 4 };
  }

  /** A scaler reading the overflow flag `flag` (HalfGradients.overflowFlag). */
  static async create(gpu: Gpu, flag: GPUBuffer, c: GpuScalerConfig): Promise<GpuLossScaler> {
    const buffer = (label: string, bytes: number) =>
      gpu.memory.createBuffer(gpu.device, {
        label,
        size: bytes,
        category: 'other',
        usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
      });
    const state = buffer('fp16.scaler.state', STATE_WORDS * 4);
    const candidates = buffer('fp16.scaler.candidates', MAX_CANDIDATES * MAX_BLOCK);
    const selected = buffer('fp16.scaler.selected', MAX_BLOCK);
    const k = await gpu.kernels.get('loss_scaler');
    const params = {
      mode: 0,
      dynamic: c.dynamic ? 1 : 0,
      hysteresis: c.hysteresis,
      consecutive: c.consecutiveHysteresis ? 1 : 0,
      scale_window: c.scaleWindow,
      min_exp: c.minExp,
      block_words: 0,
      window_lo: 1,
      window_len: 0,
      inv_count: 1,
    };
    const bound = { flag, state, candidates, selected };
    const prepare = makeOp(gpu, k, 'fp16.scaler.prepare', params, bound, [1, 1, 1]);
    const update = makeOp(gpu, k, 'fp16.scaler.update', { ...params, mode: 1 }, bound, [1, 1, 1]);
    return new GpuLossScaler(gpu, state, candidates, selected, prepare, update, c.dynamic);
  }

  /**
   * Sets the GPU's state from the host's (nothing in flight: at the start, after a resume): the
   * scale 2^`exp`, DeepSpeed's counters and the optimizer's steps taken.
   */
  load(
    s: { readonly exp: number; readonly iter: number; readonly lastOverflowIter: number; readonly hysteresis: number },
    optimizerSteps: number,
  ): void {
    const w = new Uint32Array(STATE_WORDS);
    new Int32Array(w.buffer)[0] = s.exp;
    w[1] = s.iter;
    w[2] = s.lastOverflowIter + 1;
    w[3] = s.hysteresis;
    w[4] = optimizerSteps;
    w[ONE_WORD] = 1;
    this.gpu.device.queue.writeBuffer(this.state, 0, w);
  }

  /**
   * Records the prepare for a step whose loss gradient divides by 1/`invCount` (dynamic: the
   * factor and the inverse scale, then their copies into `loss`'s `scale` field; the unscale's
   * slot is unscaleSlot).
   */
  recordPrepare(rec: Recorder, invCount: number, loss: Op<'softmax_xent_backward'>): void {
    if (!this.dynamic) return;
    this.prepare.setParams({ inv_count: invCount });
    rec.dispatch(this.prepare);
    const at = loss.paramSlot('scale');
    rec.copy(this.state, 6 * 4, at.buffer, at.offset, 4);
  }

  /** Where prepare leaves the inverse scale (float32), for HalfGradients.recordRoundTrip. */
  get unscaleSlot(): { readonly buffer: GPUBuffer; readonly offset: number } {
    return { buffer: this.state, offset: 7 * 4 };
  }

  /**
   * Records the update (after the overflow check): the step's Params for each candidate step
   * number from `first` (`blocks`: packed Params of `op`), chosen on the GPU and copied into `op`.
   */
  recordUpdate(rec: Recorder, first: number, blocks: readonly ArrayBuffer[], op: Op): void {
    const size = blocks[0]?.byteLength ?? 0;
    if (blocks.length === 0 || blocks.length > MAX_CANDIDATES || size > MAX_BLOCK || size % 4 !== 0)
      throw new Error(`fp16.scaler: ${blocks.length} candidate Params of ${size} bytes`);
    const all = new Uint8Array(blocks.length * size);
    blocks.forEach((b, i) => {
      if (b.byteLength !== size) throw new Error('fp16.scaler: candidate Params differ in size');
      all.set(new Uint8Array(b), i * size);
    });
    this.gpu.device.queue.writeBuffer(this.candidates, 0, all);
    this.update.setParams({ block_words: size / 4, window_lo: first, window_len: blocks.length });
    rec.dispatch(this.update);
    rec.copy(this.selected, 0, op.paramsBuffer, 0, size);
  }

  /**
   * Records a copy of the state (after the update) to `dst` (the step's stats readback: Pass.extraSlot),
   * for decodeState() once it is read.
   */
  recordStateCopy(
    rec: Recorder,
    dst: { readonly buffer: GPUBuffer; readonly offset: number; readonly bytes: number },
  ): void {
    if (dst.bytes < STATE_WORDS * 4) throw new Error(`fp16.scaler: ${dst.bytes} bytes cannot hold the state`);
    rec.copy(this.state, 0, dst.buffer, dst.offset, STATE_WORDS * 4);
  }

  /** The state as recordStateCopy copied it, from its words read back. */
  decodeState(words: Uint32Array): GpuScalerState {
    const w = Uint32Array.from(words.subarray(0, STATE_WORDS));
    const i = new Int32Array(w.buffer);
    return {
      exp: i[0] ?? 0,
      iter: w[1] ?? 0,
      lastOverflowIter: (w[2] ?? 0) - 1,
      hysteresis: w[3] ?? 0,
      optimizerSteps: w[4] ?? 0,
      error: w[5] ?? 0,
      skipped: (w[8] ?? 0) !== 0,
      expUsed: i[9] ?? 0,
    };
  }

  destroy(): void {
    this.prepare.destroy();
    this.update.destroy();
    for (const b of [this.state, this.candidates, this.selected]) this.gpu.memory.destroy(b);
  }
}
