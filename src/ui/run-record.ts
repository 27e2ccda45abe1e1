// What a page run did that the views do not keep: the checkpoints it saved, the ranks whose failure
// restarted the workers, the error of a failure that ended it, whether it continued a stored checkpoint, the SHA-256 of rank 0's final
// parameters (window.webddpPage.params(): a stopped-and-resumed run is compared with one that was
// not), and rank 0's step split in each placement (kept across runs, to compare them).
import { sha256Hex } from '../checkpoint/checkpoint.ts';
import type { Placement } from '../parallel/mode.ts';
import type { TrainEvent } from '../runtime/events.ts';
import type { LessonRun, StepSplit } from './lessons/index.ts';

export class RunRecord {
  private saved = 0;
  private restarts: number[] = [];
  private resumed = false;
  private failure: string | null = null;
  /** SHA-256 of the last finished run's final parameters (float32 bytes, state_dict order). */
  paramsSha: string | null = null;
  private placement: Placement = 'own-devices';
  private sum = { steps: 0, stepMs: 0, commMs: 0 };
  private readonly splits: Partial<Record<Placement, StepSplit>> = {};

  /** A run starts (`resumed`: from a stored checkpoint) with its workers placed as `placement`. */
  reset(resumed: boolean, placement: Placement = 'own-devices'): void {
    [this.saved, this.restarts, this.resumed, this.paramsSha, this.failure] = [0, [], resumed, null, null];
    this.placement = placement;
    this.sum = { steps: 0, stepMs: 0, commMs: 0 };
  }

  handle(e: TrainEvent): void {
    if (e.type === 'checkpoint') this.saved++;
    if (e.type === 'restart') this.restarts.push(e.rank);
    if (e.type === 'step' && (e.epoch > 0 || e.step > 0)) {
      // the first step also compiles the shaders: left out, as bench/trace-summary.mjs does
      this.sum.steps++;
      this.sum.stepMs += e.ms;
      this.sum.commMs += e.workers[0]?.commMs ?? 0;
    }
  }

  /** A rank failed and ended the run: the engine's message (English), for the lessons' checks. */
  failed(message: string): void {
    this.failure = message;
  }

  async finished(params: Float32Array | null): Promise<void> {
    this.paramsSha = params
      ? await sha256Hex(new Uint8Array(params.buffer, params.byteOffset, params.byteLength))
      : null;
  }

  /** The lesson's record of the run that just ended: what the views measured, with this record's counts and splits. */
  lessonRun(
    measured: Omit<LessonRun, 'checkpoints' | 'restarts' | 'resumed' | 'exported' | 'splits' | 'failure'>,
  ): LessonRun {
    const { steps, stepMs, commMs } = this.sum;
    if (steps > 0) this.splits[this.placement] = { steps, stepMs: stepMs / steps, commMs: commMs / steps };
    return {
      ...measured,
      checkpoints: this.saved,
      restarts: [...this.restarts],
      resumed: this.resumed,
      failure: this.failure,
      exported: false,
      splits: { ...this.splits },
    };
  }
}
