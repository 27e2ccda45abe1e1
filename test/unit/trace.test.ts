// The trace's pure parts: the Chrome trace built from spans, its structure check (which must
// catch what a viewer cannot draw), the exposed share of communication, and a tracer that is off.
import { describe, expect, it } from 'vitest';
import { chromeTrace } from '../../src/trace/chrome.ts';
import { traceProblems } from '../../src/trace/check.ts';
import { stepShares } from '../../src/trace/overlap.ts';
import { NO_TRACE, Tracer, type RawGpuSpan, type Span } from '../../src/trace/tracer.ts';

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

  it('puts spans that overlap on one lane without nesting on an extra thread of the lane', () => {
    // a pipelined run: step 1 begins before step 0's loss is read back; 'c' nests in step 0
    const tr = chromeTrace([[span('step 0', 'step', 0, 5), span('step 1', 'step', 3, 5), span('c', 'step', 4, 1)]]);
    expect(traceProblems(tr, 1)).toEqual([]);
    const x = tr.traceEvents.filter((e) => e.ph === 'X');
    expect(x.map((e) => [e.name, e.tid])).toEqual([
      ['step 0', 0],
      ['step 1', 4],
      ['c', 0],
    ]);
    const thread = tr.traceEvents.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.tid === 4);
    expect(thread?.args?.['name']).toBe('step (2)');
  });

  it('reports spans that overlap on one lane without nesting, a missing rank, bad fields', () => {
    const tr = chromeTrace([[span('a', 'comm', 0, 5)]]);
    const b = { name: 'b', ph: 'X' as const, pid: 0, tid: 3, ts: 3000, dur: 5000, cat: 'comm' };
    expect(traceProblems({ ...tr, traceEvents: [...tr.traceEvents, b] }, 2)).toEqual([
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

  it('places GPU timestamps on the epoch clock: no work begins before its submit, none overlaps', async () => {
    const t = new Tracer(true);
    const raw = (name: string, step: number, submitMs: number, beginUs: number, endUs: number): RawGpuSpan => ({
      name,
      step,
      submitMs,
      beginNs: 5_000_000_000_000n + BigInt(beginUs * 1000),
      endNs: 5_000_000_000_000n + BigInt(endUs * 1000),
    });
    // Layer b was submitted at 1000.5 ms and began 500 us after a (the GPU idle then: the tight
    // bound); layer a's submit at 1000 ms alone says less. One read brings all three, out of order.
    const read = Promise.resolve([
      raw('b', 1, 1000.5, 500, 900),
      raw('a', 1, 1000, 0, 300),
      raw('c', 2, 1000.6, 890, 1200),
    ]);
    t.gpuTimed(read);
    await read;
    const spans = t.take();
    const at = (n: string) => spans.find((s) => s.name === n);
    expect(spans.map((s) => s.name)).toEqual(['a', 'b', 'c']);
    expect(at('a')?.t).toBeCloseTo(1000, 9);
    expect(at('a')?.dur).toBeCloseTo(0.3, 9);
    expect(at('b')?.t).toBeCloseTo(1000.5, 9);
    expect(at('b')?.dur).toBeCloseTo(0.4, 9);
    // c's begin (890 us) is before b's end (900 us) on the GPU clock: chained after b, its end kept
    expect(at('c')?.t).toBeCloseTo(1000.9, 9);
    expect(at('c')?.dur).toBeCloseTo(0.3, 9);
    expect(at('c')?.args?.['step']).toBe(2);
    expect(spans.every((s) => s.lane === 'compute')).toBe(true);
    expect(t.take()).toEqual([]);
  });

  it('waits for the GPU spans still in flight at the end of a run, and not for ever', async () => {
    const t = new Tracer(true);
    let land: (raw: RawGpuSpan[]) => void = () => {};
    t.gpuTimed(new Promise((resolve) => (land = resolve)));
    t.gpuTimed(new Promise(() => {})); // a read that never comes back
    setTimeout(() => land([{ name: 'late', step: 7, submitMs: 1, beginNs: 1n, endNs: 2_000n }]), 20);
    const t0 = performance.now();
    await t.landed(300);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    expect(t.take().map((s) => [s.name, s.args?.['step']])).toEqual([['late', 7]]);
    const quiet = new Tracer(true);
    quiet.gpuTimed(Promise.resolve([]));
    const t1 = performance.now();
    await quiet.landed(5_000);
    expect(performance.now() - t1).toBeLessThan(1_000); // nothing pending: at once
  });
});
