// `webddp train` on one worker runs pipelined (step k+1 asked for while step k runs): after the
// first steps have filled the pools, a step creates no GPU buffer at all, counted by the worker's
// MemoryTracker (every buffer the engine creates goes through it).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChromeTrace } from '../../src/trace/chrome.ts';
import { traceProblems } from '../../src/trace/check.ts';
import { jsonLines, webddp } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-pipeline-'));

describe('one worker, pipelined steps', () => {
  it('reads step k+1 while step k runs and allocates no GPU buffer per step once warm', async () => {
    const file = join(dir, 'trace.json');
    const r = await webddp(
      'train',
      ...['--store', join(dir, 'store'), '--workers', '1', '--batch-size', '4', '--train-limit', '40', '--drop-last'],
      ...['--test-limit', '4', '--epochs', '1', '--json', '--log-every', '1', '--trace', file],
    );
    expect(r.code, r.err).toBe(0);
    const steps = jsonLines(r.out, 'step');
    expect(steps).toHaveLength(10);
    const created = steps.map((s) => (s.workers as { buffers_created: number }[])[0]?.buffers_created ?? NaN);
    expect(created.every(Number.isInteger)).toBe(true);
    // Steps 0-1 create the step's plan and the second staging buffers (two steps in flight).
    expect(created.slice(2), `buffers created after each step: ${created.join(', ')}`).toEqual(
      created.slice(2).map(() => created[2]),
    );
    expect(steps.every((s) => Number.isFinite(s.loss))).toBe(true);
    // Pipelined: each later step's batch is read before the step ahead of it has returned.
    const trace = JSON.parse(readFileSync(file, 'utf8')) as ChromeTrace;
    // overlapping steps go to a second step thread: the trace stays one a viewer can draw
    expect(traceProblems(trace, 1)).toEqual([]);
    const events = trace.traceEvents;
    const at = (name: string, step: number) => events.find((e) => e.name === name && e.args?.['step'] === step);
    for (let k = 1; k < 9; k++) {
      const stepK = at(`step ${k}`, k);
      const next = at('data', k + 1);
      expect(stepK && next, `step ${k} and the data of step ${k + 1} are traced`).toBeTruthy();
      expect(next?.ts ?? Infinity).toBeLessThan((stepK?.ts ?? 0) + (stepK?.dur ?? 0));
    }
  });
});
