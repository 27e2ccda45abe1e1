// The coordinator's side of an epoch's evaluation: the ranks' results summed, and the interrupt
// (SIGINT, SIGTERM) that abandons an evaluation in progress or skips it, so a run ends within a step.
import type { EvalResult } from './protocol.ts';

/** The test loss, correct count and samples of every rank together. */
export function sumEvals(ev: readonly EvalResult[]): EvalResult {
  return ev.reduce(
    (a, e) => ({ lossSum: a.lossSum + e.lossSum, correct: a.correct + e.correct, samples: a.samples + e.samples }),
    { lossSum: 0, correct: 0, samples: 0 },
  );
}

/** Fired once; work that may be abandoned (an evaluation) is raced against it. */
export class Interrupt {
  private fired = false;
  private resolve: () => void = () => {};
  private readonly promise = new Promise<void>((r) => (this.resolve = r));

  fire(): void {
    this.fired = true;
    this.resolve();
  }

  /** `start()`'s value, or null if the interrupt came before it started or before it ended. */
  async race<T>(start: () => Promise<T>): Promise<T | null> {
    if (this.fired) return null;
    const p = start();
    p.catch(() => undefined); // abandoned: its failure no longer matters
    return Promise.race([p, this.promise.then(() => null)]);
  }
}
