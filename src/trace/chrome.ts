// The Chrome trace event format (the JSON `traceEvents` that Perfetto and chrome://tracing open):
// one process per rank, one thread per lane, 'X' (complete) events for spans and 'i' (instant)
// events for marks, timestamps in microseconds from the run's first span. A viewer draws a thread's
// spans as a stack, so spans on one lane that overlap without nesting (a pipelined run's step k+1
// begins before step k's loss is read back) go to an extra thread of that lane, `step (2)`.
import { LANES, type Lane, type Span, type SpanArgs } from './tracer.ts';

export interface TraceEvent {
  readonly name: string;
  readonly ph: 'X' | 'i' | 'M';
  readonly pid: number;
  readonly tid: number;
  readonly ts: number;
  readonly dur?: number;
  readonly cat?: string;
  readonly s?: 't';
  readonly args?: SpanArgs;
}

export interface ChromeTrace {
  readonly traceEvents: TraceEvent[];
  readonly displayTimeUnit: 'ms';
  /** The epoch time (ms) of ts = 0, and what produced the trace. */
  readonly otherData: Readonly<Record<string, string | number>>;
}

const laneId = (lane: Lane): number => LANES.indexOf(lane);

/** Rounding slack of the microsecond timestamps. */
const EPS_US = 0.01;

/**
 * The track (0, 1, ...) of each of one lane's spans, given sorted by start (longest first): the
 * first track where the span nests in or follows what is open there.
 */
function tracks(spans: readonly { ts: number; dur?: number }[]): number[] {
  const open: { ts: number; dur?: number }[][] = [];
  const end = (e: { ts: number; dur?: number }) => e.ts + (e.dur ?? 0);
  return spans.map((e) => {
    let k = 0;
    for (; k < open.length; k++) {
      const stack = open[k] ?? [];
      while (stack.length > 0 && end(stack[stack.length - 1] ?? e) <= e.ts + EPS_US) stack.pop();
      const top = stack[stack.length - 1];
      if (!top || end(e) <= end(top) + EPS_US) break;
    }
    (open[k] ??= []).push(e);
    return k;
  });
}

/** `spans[r]`: rank r's spans (any order). */
export function chromeTrace(
  spans: readonly (readonly Span[])[],
  about: Record<string, string | number> = {},
): ChromeTrace {
  const t0 = Math.min(...spans.flatMap((s) => s.map((x) => x.t)), Infinity);
  const origin = Number.isFinite(t0) ? t0 : 0;
  const us = (ms: number) => Math.round((ms - origin) * 1000 * 1000) / 1000;
  const events: TraceEvent[] = [];
  spans.forEach((list, pid) => {
    const meta = (name: string, tid: number, args: SpanArgs) => events.push({ name, ph: 'M', pid, tid, ts: 0, args });
    meta('process_name', 0, { name: `rank ${pid}` });
    meta('process_sort_index', 0, { sort_index: pid });
    const byLane = new Map<Lane, Span[]>(LANES.map((l) => [l, []]));
    for (const s of [...list].sort((a, b) => a.t - b.t || (b.dur ?? 0) - (a.dur ?? 0))) byLane.get(s.lane)?.push(s);
    for (const lane of LANES) {
      const laneSpans = byLane.get(lane) ?? [];
      const track = tracks(
        laneSpans.map((s) => ({ ts: s.t * 1000, ...(s.dur === undefined ? {} : { dur: s.dur * 1000 }) })),
      );
      const used = Math.max(0, ...track);
      for (let k = 0; k <= used; k++) {
        const tid = laneId(lane) + k * LANES.length;
        meta('thread_name', tid, { name: k === 0 ? lane : `${lane} (${k + 1})` });
        meta('thread_sort_index', tid, { sort_index: tid === laneId(lane) ? tid : laneId(lane) + k / 10 });
      }
      laneSpans.forEach((s, i) => {
        const base = {
          name: s.name,
          pid,
          tid: laneId(lane) + (track[i] ?? 0) * LANES.length,
          ts: us(s.t),
          cat: s.lane,
          ...(s.args ? { args: s.args } : {}),
        };
        events.push(
          s.dur === undefined
            ? { ...base, ph: 'i', s: 't' }
            : { ...base, ph: 'X', dur: Math.round(s.dur * 1000 * 1000) / 1000 },
        );
      });
    }
  });
  return { traceEvents: events, displayTimeUnit: 'ms', otherData: { epochMs: origin, ...about } };
}
