// How much of a step's communication the GPU's work hid: the time on the comm lane not covered by
// any span on the compute lane, as a share of the step (what the timeline view prints under the
// lanes, and what a trace's reader looks for first).
import type { Span } from './tracer.ts';

export interface StepShare {
  readonly step: number;
  /** The step's wall time on this rank, ms. */
  readonly stepMs: number;
  /** Communication (comm lane) time, ms. */
  readonly commMs: number;
  /** Of it, the time no GPU work ran, ms. */
  readonly exposedMs: number;
}

type Interval = readonly [number, number];

/** Sorted, merged intervals of `spans`. */
function union(spans: readonly Span[]): Interval[] {
  const iv = spans
    .filter((s) => s.dur !== undefined && s.dur > 0)
    .map((s): Interval => [s.t, s.t + (s.dur ?? 0)])
    .sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [a, b] of iv) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

const length = (iv: readonly Interval[]) => iv.reduce((s, [a, b]) => s + b - a, 0);

/** Length of `a` minus the parts covered by `b` (both merged). */
function uncovered(a: readonly Interval[], b: readonly Interval[]): number {
  let covered = 0;
  for (const [a0, a1] of a) for (const [b0, b1] of b) covered += Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
  return length(a) - covered;
}

/** Per step of one rank's spans (the 'step' lane's spans mark the steps): comm time and its exposed part. */
export function stepShares(spans: readonly Span[]): StepShare[] {
  return spans
    .filter((s) => s.lane === 'step' && s.name.startsWith('step') && s.dur !== undefined)
    .map((st) => {
      const t1 = st.t + (st.dur ?? 0);
      const inside = (s: Span) => s.t < t1 && s.t + (s.dur ?? 0) > st.t;
      const clip = (iv: Interval[]): Interval[] =>
        iv.map(([a, b]): Interval => [Math.max(a, st.t), Math.min(b, t1)]).filter(([a, b]) => b > a);
      const comm = clip(union(spans.filter((s) => s.lane === 'comm' && inside(s))));
      const gpu = clip(union(spans.filter((s) => s.lane === 'compute' && inside(s))));
      return {
        step: Number(st.args?.['step'] ?? -1),
        stepMs: st.dur ?? 0,
        commMs: length(comm),
        exposedMs: uncovered(comm, gpu),
      };
    });
}
