// `webddp train --trace`: a real DDP run on 2 worker threads (Dawn), its trace file checked for
// the Chrome trace format's structure (every rank, every lane, spans nested or in order) and for
// DDP's overlap: a bucket's all-reduce starts while backward still runs on the GPU.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChromeTrace, TraceEvent } from '../../src/trace/chrome.ts';
import { traceProblems } from '../../src/trace/check.ts';
import { webddp } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-trace-'));

describe('webddp train --trace', () => {
  it('writes a Chrome trace of every rank in which DDP reduces buckets while backward runs', async () => {
    const file = join(dir, 'ddp.json');
    const r = await webddp(
      'train',
      ...['--store', join(dir, 'store'), '--workers', '2', '--batch-size', '8', '--train-limit', '48'],
      ...['--test-limit', '8', '--epochs', '1', '--bucket-cap-mb', '0.25', '--json', '--trace', file],
    );
    expect(r.code, r.err).toBe(0);
    // the timestamp queries and the per-layer submits a trace adds are valid WebGPU
    expect(r.err).not.toMatch(/validation|Invalid CommandBuffer/i);
    const trace = JSON.parse(readFileSync(file, 'utf8')) as ChromeTrace;
    expect(traceProblems(trace, 2)).toEqual([]);
    const spans = (pid: number, test: (e: TraceEvent) => boolean) =>
      trace.traceEvents.filter((e) => e.pid === pid && e.ph === 'X' && test(e));
    for (const pid of [0, 1]) {
      const names = new Set(trace.traceEvents.filter((e) => e.pid === pid).map((e) => e.name));
      for (const n of ['data', 'upload', 'conv1.forward', 'fc2.backward', 'conv1.backward', 'optimizer'])
        expect(names, `rank ${pid} has '${n}'`).toContain(n);
      for (const n of ['all-reduce bucket 0', 'write bucket 0', 'bucket 0 ready', 'readback stats', 'step 1'])
        expect(names, `rank ${pid} has '${n}'`).toContain(n);
      expect([...names].some((n) => /^send chunk \d+ to /.test(n))).toBe(true);
      expect([...names].some((n) => /^recv chunk \d+ from /.test(n))).toBe(true);
      // The flight recorder's records: every bucket's all-reduce with its sequence number and bucket.
      const recorded = spans(pid, (e) => /^allReduce #\d+$/.test(e.name) && e.args?.['step'] === 1);
      expect(recorded.map((e) => e.args?.['bucket']).sort()).toEqual(
        spans(pid, (e) => e.name.startsWith('all-reduce bucket') && e.args?.['step'] === 1)
          .map((e) => Number(e.name.split(' ').at(-1)))
          .sort(),
      );
      // Steps 1 and 2 (step 0 also compiles the shaders): the first all-reduce starts before the
      // last backward layer ends on the GPU.
      for (const step of [1, 2]) {
        const inStep = (e: TraceEvent) => e.args?.['step'] === step;
        const reduces = spans(pid, (e) => inStep(e) && e.name.startsWith('all-reduce bucket'));
        const backward = spans(pid, (e) => inStep(e) && e.cat === 'compute' && e.name.endsWith('.backward'));
        expect(reduces.length, `rank ${pid} step ${step} all-reduces`).toBeGreaterThan(1);
        expect(backward.length).toBeGreaterThan(3);
        const firstReduce = Math.min(...reduces.map((e) => e.ts));
        const backwardEnd = Math.max(...backward.map((e) => e.ts + (e.dur ?? 0)));
        expect(firstReduce, `rank ${pid} step ${step}`).toBeLessThan(backwardEnd);
      }
    }
  });

  it('traces ZeRO-2 reduce-scatter / all-gather and DataParallel replicas waiting on device 0', async () => {
    const expected: Record<string, string[]> = {
      zero2: ['reduce-scatter', 'all-gather', 'readback params'],
      dp: ['scatter', 'gather grads 1', 'wait for device 0', 'send grads', 'readback dlogits'],
    };
    for (const [mode, names] of Object.entries(expected)) {
      const file = join(dir, `${mode}.json`);
      const r = await webddp(
        'train',
        ...[
          '--store',
          join(dir, 'store'),
          '--workers',
          '2',
          '--batch-size',
          '4',
          '--train-limit',
          '16',
          '--mode',
          mode,
        ],
        ...['--test-limit', '8', '--epochs', '1', '--json', '--trace', file],
      );
      expect(r.code, r.err).toBe(0);
      expect(r.err).not.toMatch(/validation|Invalid CommandBuffer/i);
      const trace = JSON.parse(readFileSync(file, 'utf8')) as ChromeTrace;
      expect(traceProblems(trace, 2), mode).toEqual([]);
      const all = new Set(trace.traceEvents.filter((e) => e.ph === 'X').map((e) => e.name));
      for (const n of names) expect(all, `${mode} has '${n}'`).toContain(n);
    }
  });
});
