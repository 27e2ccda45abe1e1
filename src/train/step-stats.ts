// What comes back from a step: the loss stats (loss, correct count) and, when the recording clips,
// the pre-clip gradient norm, copied by the recording into a pooled staging buffer and read once
// the work is submitted, so that several steps can be in flight. The buffer has room for 16 more
// words a recording may copy in (the GPU loss scaler's state: one readback a step, not two).
import type { Gpu } from '../gpu/device.ts';
import type { Recorder } from '../gpu/recorder.ts';
import { StagingPool } from '../gpu/staging.ts';
import type { Timer } from '../gpu/timer.ts';
import type { GradClipper } from '../optim/clip.ts';
import type { StepResult } from './trainer-options.ts';

/** Where in a stats buffer the extra words go, and how many bytes they may take. */
export const EXTRA_AT = 32;
export const EXTRA_BYTES = 64;

export class StepStatsReadback {
  private readonly staging: StagingPool;

  constructor(
    gpu: Gpu,
    /** The trainer's clipper, whose norm a step reports; null: no norm. */
    private readonly clipper: GradClipper | null,
  ) {
    this.staging = new StagingPool(gpu, 'step.readback', EXTRA_AT + EXTRA_BYTES);
  }

  /**
   * Records a copy of the loss stats `stats` into a staging buffer for read(), with the clip norm
   * when `withNorm` (only when this recording clips: otherwise the norm would be a stale one).
   */
  copy(rec: Recorder, stats: GPUBuffer, withNorm: boolean): GPUBuffer {
    const buf = this.staging.take();
    rec.copy(stats, 0, buf, 0, 16);
    if (this.clipper && withNorm) rec.copy(this.clipper.out, 0, buf, 16, 16);
    else rec.clear(buf, 16, 16);
    return buf;
  }

  /** Reads a copy() buffer once the work recording it has been submitted. */
  async read(buf: GPUBuffer, batch: number): Promise<StepResult> {
    return (await this.readWithExtra(buf, batch)).result;
  }

  /** read(), with the 16 words the recording copied in at EXTRA_AT. */
  async readWithExtra(buf: GPUBuffer, batch: number): Promise<{ result: StepResult; extra: Uint32Array }> {
    const bytes = await this.staging.read(buf);
    const f = new Float32Array(bytes, 0, EXTRA_AT / 4);
    const result = {
      batch,
      loss: f[0] ?? NaN,
      correct: f[1] ?? 0,
      ...(this.clipper && f[4] !== 0 ? { gradNorm: f[4] ?? NaN } : {}),
    };
    return { result, extra: new Uint32Array(bytes, EXTRA_AT, EXTRA_BYTES / 4) };
  }

  /** Copies `stats` (and the clip norm) to staging, submits `rec`, and reads them back with the timer's phases. */
  async finish(rec: Recorder, stats: GPUBuffer, batch: number, timer?: Timer, withNorm = true): Promise<StepResult> {
    const buf = this.copy(rec, stats, withNorm);
    rec.submit();
    const [r, gpuMs] = await Promise.all([this.read(buf, batch), timer?.read()]);
    return gpuMs ? { ...r, gpuMs } : r;
  }

  destroy(): void {
    this.staging.destroy();
  }
}
