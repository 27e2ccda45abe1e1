// The sample ledger of an epoch: which dataset indices the ranks have consumed, so that a run
// resumed mid-epoch on another number of ranks uses every remaining sample exactly once.
//
// The rule (docs/resume-world-size.md). An epoch's order G is DistributedSampler's list before it
// is dealt: randperm(n) seeded seed + epoch (or 0..n-1 without shuffle). The epoch runs in
// segments, one per world size: a segment deals a list R (the first segment: G) DistributedSampler-
// style over its W ranks (padded by repeating R from its start to a multiple of W, or truncated
// with drop_last), rank r taking positions r, r + W, r + 2W, ..., and rank r has consumed the
// first consumed[r] positions of its shard when the checkpoint is written. A resume on the same
// number of ranks continues the segment (the shards are unchanged, so the run is the uninterrupted
// one). A resume on another number starts a new segment whose list is R's positions that no rank
// consumed, in R's order, dealt the same way to the new ranks. The checkpoint keeps the segments
// (world, steps, consumed per rank) and a hash of the consumed indices, recomputed and compared when
// the checkpoint is read.
import { CpuGenerator, randperm } from '../random/generator.ts';

export interface LedgerSampler {
  readonly seed: number;
  readonly shuffle: boolean;
  readonly dropLast: boolean;
}

export interface LedgerSegment {
  /** Ranks the segment ran on. */
  readonly world: number;
  /** Optimizer steps it ran. */
  readonly steps: number;
  /** Per rank: positions of its shard consumed (its sampler position). */
  readonly consumed: readonly number[];
}

export interface SampleLedger {
  readonly epoch: number;
  /** Training records (n). */
  readonly datasetSize: number;
  readonly sampler: LedgerSampler;
  /** In order; the last is the one the checkpoint stopped in. */
  readonly segments: readonly LedgerSegment[];
  /** Samples consumed over every segment (a padding repeat counts again). */
  readonly consumedCount: number;
  /** indicesHash of the consumed indices. */
  readonly consumedHash: string;
}

/** The epoch's order G: DistributedSampler's list before dealing. */
export function epochOrder(n: number, s: LedgerSampler, epoch: number): Int32Array {
  return s.shuffle
    ? randperm(n, new CpuGenerator(BigInt(s.seed) + BigInt(epoch)))
    : Int32Array.from({ length: n }, (_, i) => i);
}

/** A rank's shard length when a list of m is dealt to W ranks (DistributedSampler's num_samples). */
function shardLength(m: number, world: number, dropLast: boolean): number {
  return dropLast && m % world !== 0 ? Math.ceil((m - world) / world) + 0 : Math.ceil(m / world);
}

/** Rank `rank`'s shard of `list` dealt to `world` ranks: positions rank, rank + W, ... (padding wraps to the start). */
export function dealShard(list: Int32Array, world: number, rank: number, dropLast: boolean): Int32Array {
  const m = list.length;
  const out = new Int32Array(shardLength(m, world, dropLast));
  for (let k = 0; k < out.length; k++) out[k] = list[(rank + k * world) % m] ?? 0;
  return out;
}

/** The positions of `list` that no rank of `seg` consumed, in order. */
function remainingAfter(list: Int32Array, seg: LedgerSegment): Int32Array {
  const used = new Uint8Array(list.length);
  seg.consumed.forEach((c, r) => {
    for (let k = 0; k < c; k++) {
      const pos = r + k * seg.world;
      if (pos < list.length) used[pos] = 1;
    }
  });
  return list.filter((_, i) => used[i] === 0);
}

/** The indices segment `seg` consumed from `list` (rank by rank, a padding repeat included). */
function consumedBy(list: Int32Array, seg: LedgerSegment): number[] {
  const out: number[] = [];
  seg.consumed.forEach((c, r) => {
    for (let k = 0; k < c; k++) out.push(list[(r + k * seg.world) % list.length] ?? 0);
  });
  return out;
}

/** The list each segment dealt, and every index consumed, segment by segment. */
function replay(
  order: Int32Array,
  segments: readonly LedgerSegment[],
): { lists: Int32Array[]; consumed: number[][]; next: Int32Array } {
  const lists: Int32Array[] = [];
  const consumed: number[][] = [];
  let list = order;
  for (const seg of segments) {
    lists.push(list);
    consumed.push(consumedBy(list, seg));
    list = remainingAfter(list, seg);
  }
  return { lists, consumed, next: list };
}

/** What an epoch resumed from `ledger` on `world` ranks runs: each rank's shard and the segments before it. */
export interface ResumePlan {
  readonly shards: readonly Int32Array[];
  /** The segments before the one now running (its steps start after theirs). */
  readonly before: readonly LedgerSegment[];
  /** Optimizer steps of the epoch before the running segment's first. */
  readonly priorSteps: number;
}

export function resumePlan(ledger: SampleLedger, world: number): ResumePlan {
  const order = epochOrder(ledger.datasetSize, ledger.sampler, ledger.epoch);
  const last = ledger.segments.at(-1);
  if (!last) throw new Error('a sample ledger without segments');
  const continues = last.world === world;
  const before = continues ? ledger.segments.slice(0, -1) : ledger.segments;
  const { lists, next } = replay(order, ledger.segments);
  const list = continues ? (lists.at(-1) ?? order) : next;
  const dropLast = ledger.sampler.dropLast;
  return {
    shards: Array.from({ length: world }, (_, r) => dealShard(list, world, r, dropLast)),
    before,
    priorSteps: before.reduce((a, s) => a + s.steps, 0),
  };
}

/**
 * FNV-1a (64-bit) of `indices` sorted ascending, each as 4 little-endian bytes, in hex: a check that
 * the segments reproduce the consumed set the run recorded (not a cryptographic hash).
 */
function indicesHash(indices: readonly number[]): string {
  const sorted = Int32Array.from(indices).sort();
  const prime = 0x100000001b3n;
  const mask = (1n << 64n) - 1n;
  let h = 0xcbf29ce484222325n;
  for (const v of sorted) for (let k = 0; k < 4; k++) h = ((h ^ BigInt((v >>> (8 * k)) & 0xff)) * prime) & mask;
  return h.toString(16).padStart(16, '0');
}

export interface LedgerBase {
  readonly epoch: number;
  readonly datasetSize: number;
  readonly sampler: LedgerSampler;
}

/**
 * The ledger of an epoch stopped `steps` optimizer steps into a segment on `world` ranks that came
 * after `before`: every rank has consumed min(shard, steps x samplesPerStep) positions of its shard
 * (samplesPerStep: batch x gradient accumulation per rank; DataParallel's device 0 takes each shard's
 * batch in turn, so the count is the same).
 */
export function ledgerAt(
  base: LedgerBase,
  before: readonly LedgerSegment[],
  current: { readonly world: number; readonly steps: number },
  samplesPerStep: number,
): SampleLedger {
  const order = epochOrder(base.datasetSize, base.sampler, base.epoch);
  const list = replay(order, before).next;
  const len = shardLength(list.length, current.world, base.sampler.dropLast);
  const c = Math.min(len, current.steps * samplesPerStep);
  const segments = [
    ...before,
    { world: current.world, steps: current.steps, consumed: Array<number>(current.world).fill(c) },
  ];
  const all = replay(order, segments).consumed.flat();
  return { ...base, segments, consumedCount: all.length, consumedHash: indicesHash(all) };
}

/** Recomputes a ledger's consumed indices: its count and hash must be the ones it records. */
export function verifyLedger(l: SampleLedger): string | null {
  const all = replay(epochOrder(l.datasetSize, l.sampler, l.epoch), l.segments).consumed.flat();
  if (all.length !== l.consumedCount)
    return `the segments consume ${all.length} samples but the ledger records ${l.consumedCount}`;
  const h = indicesHash(all);
  return h === l.consumedHash ? null : `the consumed samples hash to ${h}, the ledger records ${l.consumedHash}`;
}

/** How often each index was used over a finished epoch, and the sentence that proves it. */
export interface EpochProof {
  readonly epoch: number;
  readonly samples: number;
  /** Indices used exactly once, more than once (padding), never (drop_last). */
  readonly once: number;
  readonly repeated: number;
  readonly never: number;
  readonly before: number;
  readonly after: number;
  readonly text: string;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * The proof of an epoch resumed from `checkpoint` whose last segment, on `world` ranks after
 * `before`, ran to the epoch's end: every index counted over all segments.
 */
export function epochProof(checkpoint: SampleLedger, before: readonly LedgerSegment[], world: number): EpochProof {
  const order = epochOrder(checkpoint.datasetSize, checkpoint.sampler, checkpoint.epoch);
  const list = replay(order, before).next;
  const len = shardLength(list.length, world, checkpoint.sampler.dropLast);
  const last = { world, steps: 0, consumed: Array<number>(world).fill(len) };
  const all = replay(order, [...before, last]).consumed.flat();
  const counts = new Uint32Array(checkpoint.datasetSize);
  for (const i of all) counts[i] = (counts[i] ?? 0) + 1;
  let once = 0,
    repeated = 0,
    never = 0;
  for (const c of counts) {
    if (c === 1) once++;
    else if (c === 0) never++;
    else repeated++;
  }
  const worlds = checkpoint.segments.map((s) => s.world);
  const onBefore = worlds.length === 1 ? `${worlds[0]} ranks` : `${worlds.join(', then ')} ranks`;
  const n = checkpoint.datasetSize;
  const each =
    repeated === 0 && never === 0
      ? 'each once'
      : [
          `${fmt(once)} once`,
          ...(repeated > 0
            ? [`${fmt(repeated)} twice (padding to a multiple of the ranks, as DistributedSampler)`]
            : []),
          ...(never > 0 ? [`${fmt(never)} left out (drop_last)`] : []),
        ].join(', ');
  const before_ = checkpoint.consumedCount;
  const after = all.length - before_;
  const text = `epoch ${checkpoint.epoch}: ${fmt(n)} samples, ${each}; ${fmt(before_)} before the checkpoint on ${onBefore}, ${fmt(after)} after on ${world}`;
  return { epoch: checkpoint.epoch, samples: n, once, repeated, never, before: before_, after, text };
}
