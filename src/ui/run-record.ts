// What a page run did that the views do not keep: the checkpoints it saved, the ranks whose failure
// restarted the workers, whether it continued a stored checkpoint, and the SHA-256 of rank 0's final
// parameters (window.webddpPage.params(): a stopped-and-resumed run is compared with one that was not).
import { sha256Hex } from '../checkpoint/checkpoint.ts';
import type { TrainEvent } from '../runtime/events.ts';
import type { LessonRun } from './lessons/index.ts';

export class RunRecord {
  private saved = 0;
  private restarts: number[] = [];
  private resumed = false;
  /** SHA-256 of the last finished run's final parameters (float32 bytes, state_dict order). */
  paramsSha: string | null = null;

  /** A run starts (`resumed`: from a stored checkpoint). */
  reset(resumed: boolean): void {
    [this.saved, this.restarts, this.resumed, this.paramsSha] = [0, [], resumed, null];
  }

  handle(e: TrainEvent): void {
    if (e.type === 'checkpoint') this.saved++;
    if (e.type === 'restart') this.restarts.push(e.rank);
  }

  async finished(params: Float32Array | null): Promise<void> {
    this.paramsSha = params
      ? await sha256Hex(new Uint8Array(params.buffer, params.byteOffset, params.byteLength))
      : null;
  }

  /** The lesson's record of the run: what the views measured, with this record's counts. */
  lessonRun(measured: Omit<LessonRun, 'checkpoints' | 'restarts' | 'resumed' | 'exported'>): LessonRun {
    return {
      ...measured,
      checkpoints: this.saved,
      restarts: [...this.restarts],
      resumed: this.resumed,
      exported: false,
    };
  }
}
