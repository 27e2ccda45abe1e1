// A rank's step timeline: spans (name, lane, start, duration) on one clock shared by every worker,
// `performance.timeOrigin + performance.now()` in milliseconds (each worker's performance.now()
// starts at its own timeOrigin). GPU work is timed by GPU timestamps where the device has them
// (gpu/trace-timestamps.ts: ns on the GPU's own clock, placed on the epoch clock here), else from
// its submit to its fence (queue.onSubmittedWorkDone); either way spans on the GPU lane are
// chained so that they never overlap. A tracer that is off records nothing: every method returns
// at its first line.

/** The lanes of a rank: the step as the coordinator sees it, data, GPU work, communication. */
export const LANES = ['step', 'data', 'compute', 'comm'] as const;
export type Lane = (typeof LANES)[number];

export type SpanArgs = Readonly<Record<string, string | number>>;

export interface Span {
  readonly name: string;
  readonly lane: Lane;
  /** Start, ms on the shared epoch clock. */
  readonly t: number;
  /** Duration in ms; an instant (a mark) has none. */
  readonly dur?: number;
  readonly args?: SpanArgs;
}

/** The fields of comm/link.ts's TransferEvent a trace shows (trace/ depends on no other folder). */
export interface TransferLike {
  readonly kind: 'send' | 'recv';
  readonly op: string;
  readonly coll: number;
  readonly phase: string;
  readonly step: number;
  readonly from: number;
  readonly to: number;
  readonly chunk: number;
  readonly bytes: number;
  readonly t: number;
}

/** A traced layer's GPU interval from timestamps: ns on the device's clock, and when it was submitted. */
export interface RawGpuSpan {
  readonly name: string;
  readonly step: number;
  /** Epoch ms of the submit (the GPU cannot start it earlier). */
  readonly submitMs: number;
  readonly beginNs: bigint;
  readonly endNs: bigint;
}

const NOOP = (): void => undefined;

/** Milliseconds on the clock every worker shares (see comm/link.ts nowMs, the same clock). */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

export class Tracer {
  private spans: Span[] = [];
  private gpuEnd = 0;
  /** The first timestamp seen (ns): later ones are taken relative to it, exact in a double. */
  private baseNs: bigint | null = null;
  /**
   * Epoch ms of GPU time baseNs: the largest (submit - begin) seen, since no work begins before
   * its submit. It is exact up to the GPU's start latency whenever the GPU was idle at a submit.
   */
  private offsetMs = -Infinity;
  /** The step the next spans belong to (a field of their args). */
  step = -1;

  constructor(readonly on: boolean) {}

  /** Starts a span; call the returned function to end it. */
  begin(name: string, lane: Lane, args?: SpanArgs): () => void {
    if (!this.on) return NOOP;
    const t = epochMs();
    const step = this.step;
    return () => this.spans.push({ name, lane, t, dur: Math.max(0, epochMs() - t), args: { step, ...args } });
  }

  /** Runs `fn` inside a span. */
  async span<T>(name: string, lane: Lane, fn: () => Promise<T>, args?: SpanArgs): Promise<T> {
    if (!this.on) return fn();
    const end = this.begin(name, lane, args);
    try {
      return await fn();
    } finally {
      end();
    }
  }

  /** A finished span from `t0` to `t1` (epoch ms). */
  add(name: string, lane: Lane, t0: number, t1: number, args?: SpanArgs): void {
    if (!this.on) return;
    this.spans.push({ name, lane, t: t0, dur: Math.max(0, t1 - t0), args: { step: this.step, ...args } });
  }

  /** An instant at `t` (default now). */
  mark(name: string, lane: Lane, args?: SpanArgs, t = epochMs()): void {
    if (!this.on) return;
    this.spans.push({ name, lane, t, args: { step: this.step, ...args } });
  }

  /** A ring chunk sent or received (comm/link.ts TransferEvent), as an instant on the comm lane. */
  transfer(e: TransferLike): void {
    if (!this.on) return;
    const peer = e.kind === 'send' ? `to ${e.to}` : `from ${e.from}`;
    const args = { op: e.op, phase: e.phase, ringStep: e.step, chunk: e.chunk, bytes: e.bytes, coll: e.coll };
    this.mark(`${e.kind} chunk ${e.chunk} ${peer}`, 'comm', args, e.t);
  }

  /**
   * GPU work just submitted to `queue`: a compute-lane span from the submit (or the end of the
   * previous GPU span, whichever is later: the queue runs in order) to the fence.
   */
  submitted(name: string, queue: GPUQueue): void {
    if (!this.on) return;
    const t = epochMs();
    const step = this.step;
    this.landing(
      queue.onSubmittedWorkDone().then(
        () => {
          const end = epochMs();
          const start = Math.max(t, this.gpuEnd);
          this.gpuEnd = end;
          this.spans.push({ name, lane: 'compute', t: start, dur: Math.max(0, end - start), args: { step } });
        },
        () => undefined,
      ),
    );
  }

  /**
   * GPU intervals from timestamps, read back by `read`: placed on the epoch clock when they land
   * (reads land in the queue's order), chained after the GPU spans placed before them.
   */
  gpuTimed(read: Promise<readonly RawGpuSpan[]>): void {
    if (!this.on) return;
    this.landing(
      read.then(
        (raw) => {
          for (const r of raw) {
            this.baseNs ??= r.beginNs;
            this.offsetMs = Math.max(this.offsetMs, r.submitMs - Number(r.beginNs - this.baseNs) / 1e6);
          }
          const base = this.baseNs ?? 0n;
          const ms = (ns: bigint) => this.offsetMs + Number(ns - base) / 1e6;
          for (const r of [...raw].sort((a, b) => (a.beginNs < b.beginNs ? -1 : a.beginNs > b.beginNs ? 1 : 0))) {
            const start = Math.max(ms(r.beginNs), this.gpuEnd);
            const end = Math.max(ms(r.endNs), start);
            this.gpuEnd = end;
            this.spans.push({ name: r.name, lane: 'compute', t: start, dur: end - start, args: { step: r.step } });
          }
        },
        () => undefined, // a lost device: its spans are gone with it, and the run reports the loss
      ),
    );
  }

  /** GPU spans still to land (their fence or timestamps not back yet). */
  private readonly inFlight = new Set<Promise<void>>();

  private landing(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  /**
   * Waits until every GPU span recorded so far has landed (the end of a run: its last steps'
   * spans), at most `timeoutMs`: a trace never holds up the end of a run for long.
   */
  async landed(timeoutMs = 10_000): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    const all = (async () => {
      while (this.inFlight.size > 0) await Promise.all(this.inFlight);
    })();
    try {
      await Promise.race([all, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The spans recorded since the last take (GPU spans land when their timestamps or fence do). */
  take(): Span[] {
    const out = this.spans;
    this.spans = [];
    return out;
  }
}

/** The tracer of a run without tracing. */
export const NO_TRACE = new Tracer(false);
