// The replay clock of the ring view: a step's transfers are shown in slow motion, all at one
// slow-down factor, while the stretches where nothing is in flight (the GPUs computing, e.g.
// backward producing the next bucket) are skipped in a fixed short pause, so every collective of
// the step is visible however long the computation between them took.
import type { Flight } from './ring-replay.ts';

/** Replay time given to one skipped stretch, ms. */
const PAUSE_MS = 350;
/** Replay time per burst of communication, and bounds of a whole step's replay, ms. */
const BURST_MS = 1100;
const MIN_MS = 1500;
const MAX_MS = 4500;

interface Segment {
  readonly real0: number;
  readonly real1: number;
  readonly play0: number;
  readonly play1: number;
  readonly skipped: boolean;
}

export interface Warp {
  /** Length of the replay, ms. */
  readonly total: number;
  /** Replay ms per real ms while chunks are in flight. */
  readonly factor: number;
  /** Real ms with nothing in flight that the replay skips. */
  readonly skipped: number;
  /** Real time (ms after the step's first event) shown at replay time `ms`. */
  toReal(ms: number): number;
  /** Whether real time t lies in a skipped stretch. */
  isSkipped(t: number): boolean;
}

/** The replay clock for flights spanning `span` real ms. */
export function warp(flights: readonly Flight[], span: number): Warp {
  const minGap = Math.max(1, 0.04 * span);
  const busy: [number, number][] = [];
  for (const f of flights) {
    const last = busy[busy.length - 1];
    if (last && f.t0 <= last[1] + minGap) last[1] = Math.max(last[1], f.t1);
    else busy.push([f.t0, f.t1]);
  }
  const busyMs = busy.reduce((a, [s, e]) => a + (e - s), 0);
  const gaps = Math.max(0, busy.length - 1);
  const total = Math.min(MAX_MS, Math.max(MIN_MS, BURST_MS * busy.length + PAUSE_MS * gaps));
  const factor = busyMs > 0 ? Math.max(0, total - PAUSE_MS * gaps) / busyMs : 1;
  const segs: Segment[] = [];
  let play = 0;
  busy.forEach(([s, e], i) => {
    const prev = busy[i - 1];
    if (prev) {
      segs.push({ real0: prev[1], real1: s, play0: play, play1: play + PAUSE_MS, skipped: true });
      play += PAUSE_MS;
    }
    const d = busyMs > 0 ? (e - s) * factor : 0;
    segs.push({ real0: s, real1: e, play0: play, play1: play + d, skipped: false });
    play += d;
  });
  const skipped = span - busyMs;
  return {
    total: Math.max(play, 1),
    factor,
    skipped,
    toReal(ms) {
      for (const g of segs) {
        if (ms <= g.play1)
          return g.play1 > g.play0
            ? g.real0 + ((Math.max(ms, g.play0) - g.play0) / (g.play1 - g.play0)) * (g.real1 - g.real0)
            : g.real1;
      }
      return span;
    },
    isSkipped: (t) => segs.some((g) => g.skipped && t > g.real0 && t < g.real1),
  };
}
