// Pure logic behind the teaching page's views: the compare view's run settings and imbalance, the
// curves' history and smoothing, how often rank 0 logs, and how the desync lesson reads both sides
// of a collective desync from the engine's error.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/parallel/index.ts';
import type { MemorySnapshot } from '../../src/gpu/memory.ts';
import { compareConfig, imbalance } from '../../src/ui/compare-runner.ts';
import { History } from '../../src/ui/views/history.ts';
import { logEvery } from '../../src/ui/views/log.ts';
import { CollectiveDesyncError } from '../../src/comm/flight-recorder.ts';
import { RankFailedError } from '../../src/runtime/events.ts';
import { desync, desyncSides } from '../../src/ui/lessons/desync.ts';
import type { LessonRun } from '../../src/ui/lessons/index.ts';

const snap = (peak: number): MemorySnapshot => ({
  allocated: peak,
  peak,
  buffers: 1,
  byCategory: {} as MemorySnapshot['byCategory'],
});

describe('compare view', () => {
  it('trains exactly `steps` global batches in the chosen mode with a small evaluation', () => {
    const base = parseConfig({ workers: 4, batchSize: 8, epochs: 5, trainLimit: 0, gpu0Bsz: 100 });
    const c = compareConfig(base, 'balanced-dp', 3);
    expect(c).toMatchObject({
      mode: 'balanced-dp',
      epochs: 1,
      trainLimit: 96,
      testLimit: 32,
      checkEvery: 0,
      gpu0Bsz: 32,
    });
    expect(compareConfig(base, 'ddp', 2).gpu0Bsz).toBe(100);
  });

  it('imbalance is worker 0 over the mean of the others', () => {
    expect(imbalance([snap(38), snap(22), snap(21), snap(20)])).toBeCloseTo(38 / 21);
    expect(imbalance([snap(5), snap(5)])).toBe(1);
    expect(imbalance([snap(5)])).toBe(1);
  });
});

describe('curves history', () => {
  it('keeps every step and epoch, and a debiased moving average that starts at the first value', () => {
    const h = new History();
    h.handle({ type: 'epoch-start', epoch: 0, steps: 3, shards: [], datasetSize: 0 });
    const step = (loss: number, s: number) =>
      h.handle({
        type: 'step',
        lr: 0.01,
        epoch: 0,
        step: s,
        steps: 3,
        loss,
        rankLosses: [loss],
        accuracy: 0.5,
        samples: 4,
        imagesPerSec: 10,
        ms: 400,
        workers: [],
        transfers: [],
      });
    step(2, 0);
    step(1, 1);
    expect(h.loss).toEqual([2, 1]);
    expect(h.smoothLoss[0]).toBe(2);
    // m1 = 0.2, m2 = 0.9*0.2 + 0.1*1 = 0.28; debiased by 1 - 0.9^2 = 0.19.
    expect(h.smoothLoss[1]).toBeCloseTo(0.28 / 0.19, 12);
    h.handle({
      type: 'epoch',
      epoch: 0,
      trainLoss: 1.5,
      trainAccuracy: 0.5,
      testLoss: 1.4,
      testAccuracy: 0.3,
      testSamples: 8,
      imagesPerSec: 10,
      seconds: 1,
      workers: [],
    });
    expect(h.epochs).toEqual([expect.objectContaining({ epoch: 0, step: 2, testAccuracy: 0.3 })]);
    h.reset();
    expect([h.loss.length, h.epochs.length, h.smoothLoss.length]).toEqual([0, 0, 0]);
  });
});

describe('rank 0 log', () => {
  it('logs about ten lines an epoch, every 50 batches on long epochs', () => {
    expect([logEvery(1), logEvery(16), logEvery(98), logEvery(499), logEvery(500), logEvery(1563)]).toEqual([
      1, 2, 10, 50, 50, 50,
    ]);
  });
});

describe('desync lesson', () => {
  /** The engine's error for a desync, built by its own classes (the words the page receives). */
  const failure = (mine: number | null, theirs: number | null, seq = 3): string => {
    const fp = (bucket: number | null, count: number) => ({
      op: 'allReduce' as const,
      bucket,
      dtype: 'f32' as const,
      count,
      step: 1,
    });
    const d = new CollectiveDesyncError(1, { fp: fp(mine, 19392), seq }, 0, { fp: fp(theirs, 525706), seq: 3 }, [
      'bucket',
      'count',
    ]);
    return new RankFailedError(1, 'throw', 'step 1 of epoch 0', `${d.name}: ${d.message}`, {
      states: [],
      report: 'collectives at the failure (flight recorder):\n  ranks 0, 1 are in no collective',
    }).message;
  };
  const run = (state: string, f: string | null): LessonRun => ({
    state,
    status: '',
    memory: [],
    losses: [],
    lrs: [],
    epochs: 0,
    moved: NaN,
    lossScales: [],
    commSpans: 0,
    checkpoints: 0,
    restarts: [],
    resumed: false,
    failure: f,
    exported: false,
    splits: {},
  });

  it('reads both sides (rank, op, collective number, bucket) from the error', () => {
    expect(desyncSides(failure(1, 0))).toEqual([
      { rank: 1, op: 'allReduce', seq: 3, bucket: 1 },
      { rank: 0, op: 'allReduce', seq: 3, bucket: 0 },
    ]);
    expect(desyncSides(failure(null, 0))?.[0].bucket).toBeNull();
    expect(desyncSides('rank 1 failed during step 1 of epoch 0: injected fault')).toBeNull();
  });

  it('is reached only by a failed run whose error names rank 1 a bucket ahead of the other rank', () => {
    expect(desync.reached(run('failed', failure(1, 0)))).toBe(true);
    expect(desync.measured?.(run('failed', failure(1, 0)), 'en')).toBe(
      'The error named both sides of allReduce #3: rank 1 was about to reduce bucket 1, rank 0 bucket 0.',
    );
    // either rank may report the desync first
    const fromRank0 = new CollectiveDesyncError(
      0,
      { fp: { op: 'allReduce', bucket: 0, dtype: 'f32', count: 525706, step: 1 }, seq: 3 },
      1,
      { fp: { op: 'allReduce', bucket: 1, dtype: 'f32', count: 19392, step: 1 }, seq: 3 },
      ['bucket', 'count'],
    );
    expect(desync.reached(run('failed', `rank 0 failed during step 1 of epoch 0: ${fromRank0.message}`))).toBe(true);
    expect(desync.reached(run('done', null))).toBe(false);
    expect(desync.reached(run('failed', 'rank 1 failed during step 1 of epoch 0: did not answer'))).toBe(false);
    // the other rank not on bucket 0, or the two on different collectives: not the skip the lesson staged
    expect(desync.reached(run('failed', failure(1, 1)))).toBe(false);
    expect(desync.reached(run('failed', failure(1, 0, 4)))).toBe(false);
  });
});
