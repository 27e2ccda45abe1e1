// The collective flight recorder (as NCCL's and PyTorch's): every collective a rank enters is
// recorded (sequence number, op, bucket, dtype, bytes, element count, training step, start and end
// time) in a ring of the last N, so that when a run fails every rank can say which collective it
// was in and which it last completed. Also the collective's fingerprint (what every rank must agree
// on before running it: op, bucket, dtype, count, step) and its comparison across ranks
// (--debug-collectives, as TORCH_DISTRIBUTED_DEBUG=DETAIL), and the report the coordinator builds
// from every rank's recorder when a run fails.
import { COLLECTIVE_OPS, reasonOf, type CollectiveOp } from './errors.ts';

/** How the collective's elements are stored: float32, packed fp16 or bfloat16 pairs, float64 scalars. */
const COLLECTIVE_DTYPES = ['f32', 'f16', 'bf16', 'f64'] as const;
export type CollectiveDtype = (typeof COLLECTIVE_DTYPES)[number];

/** What every rank must agree on before a collective runs. */
export interface CollectiveFingerprint {
  readonly op: CollectiveOp;
  /** The gradient bucket the collective carries (DDP), or null. */
  readonly bucket: number | null;
  readonly dtype: CollectiveDtype;
  /** Elements (float32-sized words; a packed pair of halves is one). */
  readonly count: number;
  /** The training step (optimizer steps since the start of the run) it belongs to. */
  readonly step: number;
}

/** One collective as a rank recorded it. */
export interface CollectiveRecord extends CollectiveFingerprint {
  /** This rank's k-th collective on this group (0-based; the same k on every rank). */
  readonly seq: number;
  readonly bytes: number;
  /** Start and end, ms on the clock every worker shares (comm/link.ts nowMs). */
  readonly start: number;
  /** null while it runs. */
  readonly end: number | null;
  /** Why it failed (it ended without completing), else absent. */
  readonly error?: string;
}

/** A rank's recorder, as the coordinator receives it. */
export interface RecorderState {
  readonly rank: number;
  /** 'ring' (every rank), or 'pair with rank P' (DataParallel's device 0 and one replica). */
  readonly group: string;
  /** Collectives entered so far (the next one's sequence number). */
  readonly entered: number;
  /** The last `capacity` records, oldest first. */
  readonly records: readonly CollectiveRecord[];
}

/** Records kept per group by default. */
const DEFAULT_RECORDER_CAPACITY = 64;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class FlightRecorder {
  private readonly ring: Mutable<CollectiveRecord>[] = [];
  private next = 0;
  /** The training step collectives are recorded under (the rank sets it at each step). */
  step = 0;

  constructor(
    readonly rank: number,
    readonly group = 'ring',
    readonly capacity = DEFAULT_RECORDER_CAPACITY,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`flight recorder capacity must be an integer >= 1 (got ${capacity})`);
  }

  /** Collectives entered so far: the next one's sequence number. */
  get entered(): number {
    return this.next;
  }

  /** The fingerprint of the next collective this rank would enter. */
  fingerprint(op: CollectiveOp, count: number, dtype: CollectiveDtype, bucket: number | null): CollectiveFingerprint {
    return { op, bucket, dtype, count, step: this.step };
  }

  /** Records entering a collective; returns the record to finish. */
  enter(fp: CollectiveFingerprint, bytes: number, now: number): CollectiveRecord {
    const rec: Mutable<CollectiveRecord> = { ...fp, seq: this.next++, bytes, start: now, end: null };
    this.ring.push(rec);
    if (this.ring.length > this.capacity) this.ring.shift();
    return rec;
  }

  /** Marks `rec` completed at `now`, or failed with `error`. */
  finish(rec: CollectiveRecord, now: number, error?: unknown): void {
    const r = rec as Mutable<CollectiveRecord>;
    if (error === undefined) r.end = now;
    else r.error = error instanceof Error ? error.message : reasonOf(error);
  }

  state(): RecorderState {
    return { rank: this.rank, group: this.group, entered: this.next, records: this.ring.map((r) => ({ ...r })) };
  }
}

/** "allReduce #12 (bucket 3, f32, 1.1 MB, step 4)". */
function describeCollective(r: CollectiveFingerprint & { readonly seq?: number; readonly bytes?: number }): string {
  const parts = [
    ...(r.bucket !== null ? [`bucket ${r.bucket}`] : []),
    r.dtype,
    r.bytes !== undefined ? formatBytes(r.bytes) : `${r.count} elements`,
    `step ${r.step}`,
  ];
  return `${r.op}${r.seq !== undefined ? ` #${r.seq}` : ''} (${parts.join(', ')})`;
}

function formatBytes(b: number): string {
  if (b >= 1e6) return `${(b / 1e6).toFixed(1)} MB`;
  if (b >= 1e3) return `${(b / 1e3).toFixed(1)} kB`;
  return `${b} B`;
}

/** Fingerprints differ (the fields that differ, named), or null when they agree. */
export function fingerprintDiff(a: CollectiveFingerprint, b: CollectiveFingerprint): string[] | null {
  const keys = ['op', 'bucket', 'dtype', 'count', 'step'] as const;
  const d = keys.filter((k) => a[k] !== b[k]);
  return d.length > 0 ? d : null;
}

/** Words of an encoded fingerprint (each an integer below 2^24, exact in a float32). */
export const FINGERPRINT_WORDS = 7;

/** A fingerprint and its sequence number as FINGERPRINT_WORDS float32 integers, for the ring to carry. */
export function encodeFingerprint(fp: CollectiveFingerprint, seq: number, out: Float32Array): void {
  const lo = (v: number) => v % 2 ** 22;
  const hi = (v: number) => Math.floor(v / 2 ** 22);
  out.set([
    COLLECTIVE_OPS.indexOf(fp.op),
    fp.bucket === null ? 0 : fp.bucket + 1,
    COLLECTIVE_DTYPES.indexOf(fp.dtype),
    lo(fp.count),
    hi(fp.count),
    Math.min(fp.step, 2 ** 23),
    Math.min(seq, 2 ** 23),
  ]);
}

export function decodeFingerprint(w: Float32Array): { fp: CollectiveFingerprint; seq: number } {
  const at = (i: number) => w[i] ?? 0;
  const op = COLLECTIVE_OPS[at(0)];
  const dtype = COLLECTIVE_DTYPES[at(2)];
  if (!op || !dtype) throw new Error(`a collective fingerprint that decodes to no op/dtype: [${[...w].join(', ')}]`);
  const fp = { op, bucket: at(1) === 0 ? null : at(1) - 1, dtype, count: at(3) + at(4) * 2 ** 22, step: at(5) };
  return { fp, seq: at(6) };
}

/** Two ranks disagree about the collective they are about to run (--debug-collectives). */
export class CollectiveDesyncError extends Error {
  override readonly name = 'CollectiveDesyncError';
  constructor(
    readonly rank: number,
    readonly mine: { readonly fp: CollectiveFingerprint; readonly seq: number },
    readonly peer: number,
    readonly theirs: { readonly fp: CollectiveFingerprint; readonly seq: number },
    readonly fields: readonly string[],
  ) {
    super(
      `collective desync (${fields.join(', ')} differ): rank ${rank} is about to run ${describeCollective({ ...mine.fp, seq: mine.seq })} ` +
        `but rank ${peer} is about to run ${describeCollective({ ...theirs.fp, seq: theirs.seq })}`,
    );
  }
}

/** One rank's line of a failure report: the collective it is in and the last one it completed. */
function rankLine(s: RecorderState): { inFlight: string; last: string; key: string } {
  const open = [...s.records].reverse().find((r) => r.end === null);
  const done = [...s.records].reverse().find((r) => r.end !== null);
  const last = done ? `last completed ${describeCollective(done)}` : 'no collective completed';
  const inFlight = !open ? 'is in no collective' : `${open.error ? 'was in' : 'is in'} ${describeCollective(open)}`;
  return { inFlight, last, key: `${inFlight}|${last}` };
}

/** One link's lines: its ranks grouped by where they stand, the silent ones, the ones behind. */
function linkLines(sides: readonly { readonly rank: number; readonly state: RecorderState | null }[]): string[] {
  const groups = new Map<string, { ranks: number[]; inFlight: string; last: string }>();
  const silent: number[] = [];
  for (const { rank, state } of sides) {
    if (!state) {
      silent.push(rank);
      continue;
    }
    const l = rankLine(state);
    const g = groups.get(l.key) ?? { ranks: [], inFlight: l.inFlight, last: l.last };
    g.ranks.push(rank);
    groups.set(l.key, g);
  }
  const who = (rs: readonly number[]) => (rs.length === 1 ? `rank ${rs[0]}` : `ranks ${rs.join(', ')}`);
  const lines = [...groups.values()].map((g) => {
    const verb =
      g.ranks.length === 1 ? g.inFlight : g.inFlight.replace(/^is in/, 'are in').replace(/^was in/, 'were in');
    return `  ${who(g.ranks)} ${verb}; ${g.last}`;
  });
  if (silent.length > 0) lines.push(`  ${who(silent)}: no recorder state (the worker did not answer)`);
  // Ranks that entered fewer collectives than the others are behind: the others wait for them.
  const entered = sides.flatMap((s) => (s.state ? [{ r: s.rank, n: s.state.entered }] : []));
  const most = Math.max(...entered.map((e) => e.n));
  const behind = entered.filter((e) => e.n < most);
  if (behind.length > 0)
    lines.push(
      `  behind: ${who(behind.map((e) => e.r))} (entered ${behind.map((e) => e.n).join(', ')} collectives, the others ${most})`,
    );
  return lines;
}

const HEADER = 'collectives at the failure (flight recorder):';

/**
 * The report of a failed run from every rank's ring recorder (index = rank; null: the worker did
 * not answer): ranks in the same place are grouped ("ranks 0, 1, 3 are in allReduce #419 (...);
 * last completed allReduce #418 (...)"), a rank that did not answer is named, and the ranks behind.
 */
export function collectiveReport(world: number, states: readonly (RecorderState | null)[]): string {
  const sides = Array.from({ length: world }, (_, rank) => ({ rank, state: states[rank] ?? null }));
  return [HEADER, ...linkLines(sides)].join('\n');
}

/**
 * collectiveReport over the ring, and the same for each DataParallel link between device 0 and a
 * replica that carried a collective: `states[r]` is rank r's recorders (ring first, then its pair
 * links, as RankApi.collectives returns them).
 */
export function failureReport(world: number, states: readonly (readonly RecorderState[] | null)[]): string {
  const ring = Array.from({ length: world }, (_, r) => states[r]?.[0] ?? null);
  const used = (sides: readonly { state: RecorderState | null }[]) => sides.some((s) => (s.state?.entered ?? 0) > 0);
  const pairs = Array.from({ length: world - 1 }, (_, i) => i + 1).flatMap((p) => {
    const sides = [
      { rank: 0, state: states[0]?.find((g) => g.group === `pair with rank ${p}`) ?? null },
      { rank: p, state: states[p]?.find((g) => g.group === 'pair with rank 0') ?? null },
    ];
    return used(sides)
      ? [`  DataParallel link between rank 0 and rank ${p}:`, ...linkLines(sides).map((l) => `  ${l}`)]
      : [];
  });
  if (pairs.length === 0) return collectiveReport(world, ring);
  const ringSides = ring.map((state, rank) => ({ rank, state }));
  const ringLines = used(ringSides) ? ['  ring:', ...linkLines(ringSides).map((l) => `  ${l}`)] : [];
  return [HEADER, ...ringLines, ...pairs].join('\n');
}
