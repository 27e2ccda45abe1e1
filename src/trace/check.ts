// Checks a Chrome trace's structure: the fields each event needs, every rank present, and spans on
// one lane either nested or one after the other (what a trace viewer needs to draw them).
import type { ChromeTrace, TraceEvent } from './chrome.ts';

/** Rounding slack of the microsecond timestamps. */
const EPS_US = 0.01;

/** What is wrong with `trace` as a trace of `world` ranks; empty when nothing is. */
export function traceProblems(trace: unknown, world: number): string[] {
  const problems: string[] = [];
  const raw: unknown = (trace as Partial<ChromeTrace> | null)?.traceEvents;
  if (!Array.isArray(raw)) return ['no traceEvents array'];
  const events = raw as readonly TraceEvent[];
  (events as readonly Partial<TraceEvent>[]).forEach((e, i) => {
    const where = `traceEvents[${i}] (${String(e.name)})`;
    if (typeof e.name !== 'string' || e.name === '') problems.push(`${where}: no name`);
    if (e.ph !== 'X' && e.ph !== 'i' && e.ph !== 'M') problems.push(`${where}: ph ${String(e.ph)} is not X, i or M`);
    if (!Number.isInteger(e.pid) || !Number.isInteger(e.tid)) problems.push(`${where}: pid/tid are not integers`);
    if (typeof e.ts !== 'number' || !Number.isFinite(e.ts) || e.ts < 0)
      problems.push(`${where}: ts ${e.ts} is invalid`);
    if (e.ph === 'X' && (typeof e.dur !== 'number' || !(e.dur >= 0)))
      problems.push(`${where}: dur ${e.dur} is invalid`);
  });
  for (let r = 0; r < world; r++) {
    if (!events.some((e) => e.pid === r && e.ph === 'M' && e.name === 'process_name'))
      problems.push(`rank ${r} has no process_name`);
    if (!events.some((e) => e.pid === r && e.ph === 'X')) problems.push(`rank ${r} has no spans`);
  }
  const lanes = new Map<string, TraceEvent[]>();
  for (const e of events) {
    if (e.ph !== 'X') continue;
    const k = `${e.pid}/${e.tid}`;
    lanes.set(k, [...(lanes.get(k) ?? []), e]);
  }
  for (const [k, list] of lanes) {
    const open: TraceEvent[] = [];
    const sorted = [...list].sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    for (const e of sorted) {
      while (open.length > 0 && end(open[open.length - 1] ?? e) <= e.ts + EPS_US) open.pop();
      const parent = open[open.length - 1];
      if (parent && end(e) > end(parent) + EPS_US)
        problems.push(`lane ${k}: '${e.name}' at ${e.ts} overlaps '${parent.name}' at ${parent.ts} without nesting`);
      open.push(e);
    }
  }
  return problems;
}

const end = (e: TraceEvent) => e.ts + (e.dur ?? 0);
