// The Chrome trace event format (the JSON `traceEvents` that Perfetto and chrome://tracing open):
// one process per rank, one thread per lane, 'X' (complete) events for spans and 'i' (instant)
// events for marks, timestamps in microseconds from the run's first span.
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

export const laneId = (lane: Lane): number => LANES.indexOf(lane);

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
    for (const lane of LANES) {
      meta('thread_name', laneId(lane), { name: lane });
      meta('thread_sort_index', laneId(lane), { sort_index: laneId(lane) });
    }
    const sorted = [...list].sort((a, b) => a.t - b.t || (b.dur ?? 0) - (a.dur ?? 0));
    for (const s of sorted) {
      const base = {
        name: s.name,
        pid,
        tid: laneId(s.lane),
        ts: us(s.t),
        cat: s.lane,
        ...(s.args ? { args: s.args } : {}),
      };
      events.push(
        s.dur === undefined
          ? { ...base, ph: 'i', s: 't' }
          : { ...base, ph: 'X', dur: Math.round(s.dur * 1000 * 1000) / 1000 },
      );
    }
  });
  return { traceEvents: events, displayTimeUnit: 'ms', otherData: { epochMs: origin, ...about } };
}
