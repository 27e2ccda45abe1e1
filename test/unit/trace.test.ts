// The trace's pure parts: the Chrome trace built from spans, its structure check (which must
// catch what a viewer cannot draw), the exposed share of communication, and a tracer that is off.
import { describe, expect, it } from 'vitest';
import { chromeTrace } from '../../src/trace/chrome.ts';
import { traceProblems } from '../../src/trace/check.ts';
import { stepShares } from '../../src/trace/overlap.ts';
import { NO_TRACE, Tracer, type Span } from '../../src/trace/tracer.ts';

const T = 1_700_000_000_000; // an epoch time in ms, as the workers' clocks give
const span = (name: string, lane: Span['lane'], t: number, dur: number, step = 0): Span => ({
  name,
  lane,
  t: T + t,
  dur,
  args: { step },
});

describe('trace', () => {
  it('writes one process per rank with named lanes, microseconds from the first span', () => {
    const tr = chromeTrace([[span('step 0', 'step', 0, 10)], [span('conv1.forward', 'compute', 2.5, 1)]]);
    expect(traceProblems(tr, 2)).toEqual([]);
    const x = tr.traceEvents.filter((e) => e.ph === 'X');
    expect(x.map((e) => [e.pid, e.tid, e.ts, e.dur])).toEqual([
      [0, 0, 0, 10_000],
      [1, 2, 2500, 1000],
    ]);
    expect(tr.otherData['epochMs']).toBe(T);
    const names = tr.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => e.args?.['name']);
    expect(names).toEqual(['step', 'data', 'compute', 'comm', 'step', 'data', 'compute', 'comm']);
  });

  it('reports spans that overlap on one lane without nesting, a missing rank, bad fields', () => {
    const tr = chromeTrace([[span('a', 'comm', 0, 5), span('b', 'comm', 3, 5)]]);
    expect(traceProblems(tr, 2)).toEqual([
      'rank 1 has no process_name',
      'rank 1 has no spans',
      "lane 0/3: 'b' at 3000 overlaps 'a' at 0 without nesting",
    ]);
    expect(traceProblems({ traceEvents: [{ name: '', ph: 'B', pid: 0, tid: 0, ts: -1 }] }, 0)).toEqual([
      'traceEvents[0] (): no name',
      'traceEvents[0] (): ph B is not X, i or M',
      'traceEvents[0] (): ts -1 is invalid',
    ]);
    expect(traceProblems({}, 1)).toEqual(['no traceEvents array']);
  });

  it('counts as exposed only the communication no GPU span covers', () => {
    const spans = [
      span('step 3', 'step', 0, 100, 3),
      span('conv2.backward', 'compute', 0, 60, 3),
      span('all-reduce bucket 0', 'comm', 40, 30, 3), // 20 ms hidden, 10 ms exposed
      span('all-reduce bucket 1', 'comm', 80, 10, 3), // exposed
    ];
    expect(stepShares(spans)).toEqual([{ step: 3, stepMs: 100, commMs: 40, exposedMs: 20 }]);
  });

  it('records nothing when off', async () => {
    const off = new Tracer(false);
    off.begin('x', 'data')();
    off.mark('m', 'comm');
    expect(await off.span('s', 'comm', async () => 7)).toBe(7);
    expect(off.take()).toEqual([]);
    expect(NO_TRACE.on).toBe(false);
    const on = new Tracer(true);
    on.step = 4;
    on.begin('x', 'data')();
    expect(on.take().map((s) => [s.name, s.lane, s.args?.['step']])).toEqual([['x', 'data', 4]]);
  });
});
