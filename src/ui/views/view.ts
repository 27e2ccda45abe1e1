// The contract between the teaching page's views and the run: events arrive in order and are only
// stored (cheap, so training never waits on drawing); drawing happens in render(), at most once per
// animation frame, only while the view says it is dirty.
import type { TrainEvent } from '../../runtime/events.ts';

export interface View {
  /** Stores what the view needs from one event of the run (no DOM work here). */
  handle(e: TrainEvent): void;
  /** Draws what changed since the last call; `now` is performance.now(). Returns true to be called again next frame (an animation is running). */
  render(now: number): boolean;
  /** Forgets the previous run. */
  reset(): void;
}
