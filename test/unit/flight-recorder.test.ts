// The collective flight recorder on real rings of MessagePort links (comm-harness): every
// collective a ProcessGroup runs is recorded with its fingerprint, bytes, step and times in a ring
// of the last N; the failure report groups ranks by where they stand and names the rank behind;
// --debug-collectives' fingerprint compare stops at the first mismatch naming both sides, before
// any data moves.
import { describe, expect, it } from 'vitest';
import {
  CollectiveDesyncError,
  collectiveReport,
  decodeFingerprint,
  encodeFingerprint,
  failureReport,
  FINGERPRINT_WORDS,
  FlightRecorder,
} from '../../src/comm/flight-recorder.ts';
import { ProcessGroup } from '../../src/comm/process-group.ts';
import { closeAll, integerInput, onAllRanks, portRing, values } from './comm-harness.ts';

function groups(world: number, debug = false, timeoutMs = 2000): ProcessGroup[] {
  return portRing(world, { timeoutMs }).map((l) => new ProcessGroup(l, { debug, recorderCapacity: 4 }));
}

describe('FlightRecorder', () => {
  it('keeps the last N records with sequence numbers, and marks completion or failure', () => {
    const rec = new FlightRecorder(1, 'ring', 3);
    const open = [];
    for (let i = 0; i < 5; i++) {
      rec.step = i;
      open.push(rec.enter(rec.fingerprint('allReduce', 10 + i, 'f32', i), 4 * (10 + i), 100 + i));
    }
    rec.finish(open[2]!, 200);
    rec.finish(open[3]!, 201, new Error('peer gone'));
    const s = rec.state();
    expect(s.entered).toBe(5);
    expect(s.records.map((r) => r.seq)).toEqual([2, 3, 4]);
    expect(s.records[0]).toMatchObject({
      op: 'allReduce',
      bucket: 2,
      count: 12,
      bytes: 48,
      step: 2,
      start: 102,
      end: 200,
    });
    expect(s.records[1]).toMatchObject({ end: null, error: 'peer gone' });
    expect(s.records[2]?.end).toBeNull();
    expect(() => new FlightRecorder(0, 'ring', 0)).toThrow(/capacity/);
  });

  it('a fingerprint survives its float32 encoding exactly (counts beyond 2^24 too)', () => {
    const w = new Float32Array(FINGERPRINT_WORDS);
    const fp = { op: 'reduceScatter', bucket: 7, dtype: 'bf16', count: 123_456_789, step: 4242 } as const;
    encodeFingerprint(fp, 99_999, w);
    expect(decodeFingerprint(w)).toEqual({ fp, seq: 99_999 });
    encodeFingerprint({ ...fp, bucket: null }, 0, w);
    expect(decodeFingerprint(w).fp.bucket).toBeNull();
  });
});

describe('ProcessGroup records its collectives (4 ranks, real links)', () => {
  it('every rank records the same sequence: op, bucket, dtype, bytes, step, start <= end', async () => {
    const pgs = groups(4);
    try {
      const outcomes = await onAllRanks(
        pgs.map((p) => p.link),
        async (_l, r) => {
          const pg = pgs[r]!;
          pg.recorder.step = 7;
          await pg.allReduce(integerInput(100, r), { bucket: 3 });
          await pg.allReduce(integerInput(64, r), { halves: true, bucket: 4 });
          pg.recorder.step = 8;
          await pg.allGather(new Float32Array(40));
          await pg.allReduceScalars([r, 1]);
          await pg.barrier();
          return pg.recorder.state();
        },
      );
      const states = values(outcomes);
      for (const s of states) {
        expect(s.entered).toBe(5);
        // capacity 4: the first all-reduce has left the ring
        expect(s.records.map((x) => [x.seq, x.op, x.bucket, x.dtype, x.bytes, x.step])).toEqual([
          [1, 'allReduce', 4, 'f16', 256, 7],
          [2, 'allGather', null, 'f32', 160, 8],
          [3, 'allReduceScalars', null, 'f64', 16, 8],
          [4, 'barrier', null, 'f32', 4, 8],
        ]);
        for (const x of s.records) expect(x.end).toBeGreaterThanOrEqual(x.start);
      }
      expect(collectiveReport(4, states)).toBe(
        'collectives at the failure (flight recorder):\n' +
          '  ranks 0, 1, 2, 3 are in no collective; last completed barrier #4 (f32, 4 B, step 8)',
      );
    } finally {
      closeAll(pgs.map((p) => p.link));
    }
  });

  it('a rank that stops early: the report says who is in which collective and who is behind', async () => {
    const pgs = groups(4, false, 300);
    try {
      const outcomes = await onAllRanks(
        pgs.map((p) => p.link),
        async (_l, r) => {
          const pg = pgs[r]!;
          await pg.allReduce(integerInput(1000, r), { bucket: 0 });
          if (r !== 2) await pg.allReduce(integerInput(300_000, r), { bucket: 1 }); // rank 2 never comes
        },
      );
      expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(3);
      const report = collectiveReport(
        4,
        pgs.map((p) => p.recorder.state()),
      );
      expect(report).toContain(
        '  ranks 0, 1, 3 were in allReduce #1 (bucket 1, f32, 1.2 MB, step 0); last completed allReduce #0 (bucket 0, f32, 4.0 kB, step 0)',
      );
      expect(report).toContain(
        '  rank 2 is in no collective; last completed allReduce #0 (bucket 0, f32, 4.0 kB, step 0)',
      );
      expect(report).toContain('  behind: rank 2 (entered 1 collectives, the others 2)');
      const failed = pgs[0]!.recorder.state().records.at(-1);
      expect(failed?.error).toMatch(/timed out|aborted/);
    } finally {
      closeAll(pgs.map((p) => p.link));
    }
  });
});

describe('--debug-collectives: fingerprints compared before each collective', () => {
  it('agreeing ranks run as before; the first mismatch (one rank skips a bucket) names both sides on every rank', async () => {
    const pgs = groups(3, true);
    try {
      const outcomes = await onAllRanks(
        pgs.map((p) => p.link),
        async (_l, r) => {
          const pg = pgs[r]!;
          pg.recorder.step = 5;
          const a = await pg.allReduce(integerInput(50, r), { bucket: 0 });
          if (r === 1) pg.skipBucket(1);
          const b = new Float32Array(80).fill(r);
          await pg.allReduce(b, { bucket: 1 }); // skipped on rank 1: returns at once
          await pg.allReduce(new Float32Array(20).fill(r), { bucket: 2 });
          return a;
        },
      );
      const errors = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error) : null));
      expect(errors.every((e) => e instanceof CollectiveDesyncError)).toBe(true);
      // Rank 1 is about to run bucket 2 (80 -> 20 elements) where ranks 0 and 2 run bucket 1.
      expect(errors[0]?.message).toBe(
        'collective desync (bucket, count differ): rank 0 is about to run allReduce #1 (bucket 1, f32, 80 elements, step 5) ' +
          'but rank 1 is about to run allReduce #1 (bucket 2, f32, 20 elements, step 5)',
      );
      expect(errors[1]?.message).toBe(
        'collective desync (bucket, count differ): rank 1 is about to run allReduce #1 (bucket 2, f32, 20 elements, step 5) ' +
          'but rank 0 is about to run allReduce #1 (bucket 1, f32, 80 elements, step 5)',
      );
      // Stopped before the mismatched collective ran: each recorder's last record is the agreed bucket 0.
      for (const pg of pgs) {
        const s = pg.recorder.state();
        expect(s.entered).toBe(1);
        expect(s.records.at(-1)).toMatchObject({ seq: 0, bucket: 0 });
        expect(s.records.at(-1)?.end).not.toBeNull();
      }
    } finally {
      closeAll(pgs.map((p) => p.link));
    }
  });
});

describe('failureReport: DataParallel links', () => {
  it('each link between device 0 and a replica gets its own lines; an unused ring is left out', () => {
    const rec = (rank: number, group: string, entered: number, open: boolean) => {
      const r = new FlightRecorder(rank, group);
      r.step = 1;
      for (let i = 0; i < entered; i++) {
        const x = r.enter(r.fingerprint('broadcast', i === entered - 1 ? 40 : 12_300, 'f32', null), 0, 0);
        if (!(open && i === entered - 1)) r.finish(x, 1);
      }
      return r.state();
    };
    const report = failureReport(3, [
      [rec(0, 'ring', 0, false), rec(0, 'pair with rank 1', 10, false), rec(0, 'pair with rank 2', 10, true)],
      [rec(1, 'ring', 0, false), rec(1, 'pair with rank 0', 10, false)],
      [rec(2, 'ring', 0, false), rec(2, 'pair with rank 0', 9, false)],
    ]);
    expect(report).toBe(
      [
        'collectives at the failure (flight recorder):',
        '  DataParallel link between rank 0 and rank 1:',
        '    ranks 0, 1 are in no collective; last completed broadcast #9 (f32, 0 B, step 1)',
        '  DataParallel link between rank 0 and rank 2:',
        '    rank 0 is in broadcast #9 (f32, 0 B, step 1); last completed broadcast #8 (f32, 0 B, step 1)',
        '    rank 2 is in no collective; last completed broadcast #8 (f32, 0 B, step 1)',
        '    behind: rank 2 (entered 9 collectives, the others 10)',
      ].join('\n'),
    );
  });
});
