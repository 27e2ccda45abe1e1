// The steps a run has asked of its ranks and not yet awaited, in step order. A pipelined mode
// asks for up to PIPELINE_DEPTH steps past the current one (their batches read and uploaded, their
// work queued), so that the GPU has a step queued while the current step's loss travels back and
// the next one is recorded; any other mode asks for one step at a time.

/** How many steps after the current one a pipelined mode asks for. */
export const PIPELINE_DEPTH = 2;

/** A step asked of every rank: when, and the ranks' answers. */
export interface AskedStep<T> {
  readonly at: number;
  readonly p: Promise<T>;
}

export class StepWindow<T> {
  private readonly ahead: AskedStep<T>[] = [];

  constructor(
    private readonly pipelined: boolean,
    /** Steps asked for so far, counted as each rank counts its own (a resumed run's from its step). */
    public asked: number,
  ) {}

  /** Whether no step is in flight. */
  get idle(): boolean {
    return this.ahead.length === 0;
  }

  /**
   * The current step `step` (of `steps`), asked for through `ask` unless it already is; pipelined,
   * the steps after it are asked for too, up to the depth, while `more(j)` lets a step follow the
   * one j steps ahead of `step`.
   */
  current(
    step: number,
    steps: number,
    ask: (step: number) => Promise<T>,
    more: (j: number) => boolean,
  ): AskedStep<T> | undefined {
    const push = (s: number) => {
      this.asked++;
      const p = ask(s);
      p.catch(() => undefined); // a failure is reported where the step is awaited
      this.ahead.push({ at: performance.now(), p });
    };
    if (this.ahead.length === 0) push(step);
    while (
      this.pipelined &&
      this.ahead.length <= PIPELINE_DEPTH &&
      step + this.ahead.length < steps &&
      more(this.ahead.length - 1)
    )
      push(step + this.ahead.length);
    return this.ahead.shift();
  }
}
