// The ring schedule as pure functions (W = 1..8 and lengths not divisible by W): chunk split, who
// sends and receives which chunk at each step, and, by symbolic execution of the schedule, that
// every rank ends with every chunk summed once in ring order.
import { describe, expect, it } from 'vitest';
import {
  allGatherStep,
  allReduceSchedule,
  chunkRange,
  ownedChunk,
  reduceScatterStep,
  sliceRanges,
} from '../../src/comm/ring-schedule.ts';
import type { ChunkOwnership } from '../../src/comm/ring-schedule.ts';

const WORLDS = [1, 2, 3, 4, 5, 6, 7, 8];
const lengthsFor = (w: number): number[] =>
  [...new Set([0, 1, 2, w - 1, w, w + 1, 2 * w + 3, 7, 13, 100, 1023])].filter((n) => n >= 0);

describe('chunkRange', () => {
  it('splits any length into W contiguous chunks, the first n % W one element longer', () => {
    for (const w of WORLDS) {
      for (const n of lengthsFor(w)) {
        let at = 0;
        for (let c = 0; c < w; c++) {
          const { start, end } = chunkRange(c, n, w);
          expect(start).toBe(at);
          expect(end - start).toBe(Math.floor(n / w) + (c < n % w ? 1 : 0));
          at = end;
        }
        expect(at).toBe(n);
      }
    }
  });

  it('matches the notes for n = 10, W = 4 and gives empty chunks when n < W', () => {
    expect([0, 1, 2, 3].map((c) => chunkRange(c, 10, 4))).toEqual([
      { start: 0, end: 3 },
      { start: 3, end: 6 },
      { start: 6, end: 8 },
      { start: 8, end: 10 },
    ]);
    expect([0, 1, 2, 3, 4].map((c) => chunkRange(c, 2, 5))).toEqual([
      { start: 0, end: 1 },
      { start: 1, end: 2 },
      { start: 2, end: 2 },
      { start: 2, end: 2 },
      { start: 2, end: 2 },
    ]);
    expect(() => chunkRange(4, 10, 4)).toThrow(RangeError);
    expect(() => chunkRange(0, -1, 4)).toThrow(RangeError);
  });
});

describe('ring steps', () => {
  it('reduce-scatter step i sends (r - i) mod W and receives (r - i - 1) mod W (Baidu)', () => {
    // W = 3, written out by hand from the notes' formula.
    const table = [0, 1, 2].map((r) =>
      [0, 1].map((i) => reduceScatterStep(r, 3, i, 'baidu')).map((s) => [s.send, s.recv]),
    );
    expect(table).toEqual([
      [
        [0, 2],
        [2, 1],
      ],
      [
        [1, 0],
        [0, 2],
      ],
      [
        [2, 1],
        [1, 0],
      ],
    ]);
    expect(allGatherStep(0, 3, 0, 'baidu', 2)).toEqual({ phase: 'all-gather', step: 2, send: 1, recv: 0 });
  });

  it('every rank receives at step s exactly the chunk its previous rank sends, and never sends what it receives', () => {
    for (const w of WORLDS) {
      const schedules = Array.from({ length: w }, (_, r) => allReduceSchedule(r, w));
      for (let r = 0; r < w; r++) {
        const mine = schedules[r] ?? [];
        expect(mine.length).toBe(2 * (w - 1));
        const prev = schedules[(r - 1 + w) % w] ?? [];
        mine.forEach((st, s) => {
          expect(st.step).toBe(s);
          expect(st.phase).toBe(s < w - 1 ? 'reduce-scatter' : 'all-gather');
          expect(st.recv).toBe(prev[s]?.send);
          expect(st.recv).not.toBe(st.send);
        });
      }
    }
  });

  for (const ownership of ['baidu', 'torch'] as ChunkOwnership[]) {
    it(`symbolic run (${ownership}): every chunk is summed once in ring order and every rank ends identical`, () => {
      for (const w of WORLDS) {
        // state[r][c] = the expression rank r holds for chunk c
        const state = Array.from({ length: w }, (_, r) => Array.from({ length: w }, () => `${r}`));
        for (let i = 0; i < w - 1; i++) {
          const sent = state.map((row, r) => row[reduceScatterStep(r, w, i, ownership).send] ?? '?');
          state.forEach((row, r) => {
            const st = reduceScatterStep(r, w, i, ownership);
            row[st.recv] = `(${sent[(r - 1 + w) % w]}+${row[st.recv]})`;
          });
        }
        for (let r = 0; r < w; r++) {
          const c = ownedChunk(r, w, ownership);
          const first = ownership === 'baidu' ? c : (c + 1) % w;
          let expected = `${first}`;
          for (let k = 1; k < w; k++) expected = `(${expected}+${(first + k) % w})`;
          expect(state[r]?.[c]).toBe(expected);
        }
        for (let i = 0; i < w - 1; i++) {
          const sent = state.map((row, r) => row[allGatherStep(r, w, i, ownership).send] ?? '?');
          state.forEach((row, r) => {
            row[allGatherStep(r, w, i, ownership).recv] = sent[(r - 1 + w) % w] ?? '?';
          });
        }
        for (let r = 1; r < w; r++) expect(state[r]).toEqual(state[0]);
        // chunk c's sum includes every rank exactly once
        for (const expr of state[0] ?? [])
          expect([...expr.replace(/[()+]/g, '')].sort().join('')).toBe([...Array(w).keys()].join(''));
      }
    });
  }

  it('torch ownership leaves chunk r on rank r; baidu leaves chunk r+1', () => {
    for (const w of WORLDS) {
      for (let r = 0; r < w; r++) {
        expect(ownedChunk(r, w, 'torch')).toBe(r);
        expect(ownedChunk(r, w, 'baidu')).toBe((r + 1) % w);
        if (w > 1) expect(reduceScatterStep(r, w, w - 2, 'torch').recv).toBe(r);
      }
    }
  });
});

describe('sliceRanges', () => {
  it('cuts a range into slices of at most maxElems, and an empty range into one empty slice', () => {
    expect(sliceRanges({ start: 5, end: 15 }, 4)).toEqual([
      { start: 5, end: 9 },
      { start: 9, end: 13 },
      { start: 13, end: 15 },
    ]);
    expect(sliceRanges({ start: 5, end: 9 }, 4)).toEqual([{ start: 5, end: 9 }]);
    expect(sliceRanges({ start: 3, end: 3 }, 4)).toEqual([{ start: 3, end: 3 }]);
    expect(() => sliceRanges({ start: 0, end: 3 }, 0)).toThrow(RangeError);
  });
});
