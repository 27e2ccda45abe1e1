// The ring schedule as pure functions: where chunk c of an n-element buffer lies when it is split
// over W ranks, which chunk rank r sends and receives at each ring step, and how a chunk is cut
// into message-sized slices. No I/O here; the collectives and the tests both read these.
// Chunk split follows Baidu's ring all-reduce (collectives.cu L256-272): base = floor(n/W), the
// first n % W chunks get one extra element.

/** Which half of a ring all-reduce a step belongs to. */
export type RingPhase = 'reduce-scatter' | 'all-gather';

/** A half-open element range [start, end). */
export interface Range {
  readonly start: number;
  readonly end: number;
}

/** One ring step of one rank: it sends chunk `send` to rank+1 and receives chunk `recv` from rank-1. */
export interface RingStep {
  readonly phase: RingPhase;
  /** Step index within the whole collective (reduce-scatter steps first, then all-gather). */
  readonly step: number;
  readonly send: number;
  readonly recv: number;
}

/**
 * Chunk ownership convention. `'baidu'`: after reduce-scatter rank r owns chunk (r+1) mod W, the
 * ordering of Baidu's ring and of the notes (used by all-reduce). `'torch'`: rank r owns chunk r, as
 * `torch.distributed.reduce_scatter_tensor` / `all_gather_into_tensor` (used by the standalone
 * reduce-scatter and all-gather, and so by ZeRO shards).
 */
export type ChunkOwnership = 'baidu' | 'torch';

/** Non-negative remainder. */
export function mod(a: number, m: number): number {
  return ((a % m) + m) % m;
}

function checkWorld(world: number): void {
  if (!Number.isInteger(world) || world < 1) throw new RangeError(`world size must be an integer >= 1, got ${world}`);
}

/** Element range of chunk `c` when n elements are split over `world` ranks (base/extra split). */
export function chunkRange(c: number, n: number, world: number): Range {
  checkWorld(world);
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`length must be an integer >= 0, got ${n}`);
  if (!Number.isInteger(c) || c < 0 || c >= world) throw new RangeError(`chunk ${c} is outside [0, ${world})`);
  const base = Math.floor(n / world);
  const extra = n % world;
  const start = c * base + Math.min(c, extra);
  return { start, end: start + base + (c < extra ? 1 : 0) };
}

/** The chunk that rank `rank` holds fully reduced after reduce-scatter (and contributes to all-gather). */
export function ownedChunk(rank: number, world: number, ownership: ChunkOwnership): number {
  return ownership === 'baidu' ? mod(rank + 1, world) : mod(rank, world);
}

/**
 * Reduce-scatter step i (0 <= i < W-1) of rank r: sends chunk (r - i + o) mod W and receives
 * chunk (r - i - 1 + o) mod W, then adds it in; o = 0 for 'baidu', -1 for 'torch'. The sum of
 * chunk c therefore starts at the rank that first sends it and goes round the ring once.
 */
export function reduceScatterStep(rank: number, world: number, i: number, ownership: ChunkOwnership): RingStep {
  const o = ownership === 'baidu' ? 0 : -1;
  return { phase: 'reduce-scatter', step: i, send: mod(rank - i + o, world), recv: mod(rank - i - 1 + o, world) };
}

/**
 * All-gather step i (0 <= i < W-1) of rank r: sends chunk (owned - i) mod W, receives chunk
 * (owned - i - 1) mod W and copies it in. `stepOffset` numbers the steps after a reduce-scatter.
 */
export function allGatherStep(
  rank: number,
  world: number,
  i: number,
  ownership: ChunkOwnership,
  stepOffset = 0,
): RingStep {
  const owned = ownedChunk(rank, world, ownership);
  return { phase: 'all-gather', step: stepOffset + i, send: mod(owned - i, world), recv: mod(owned - i - 1, world) };
}

/** The whole all-reduce schedule of one rank: W-1 reduce-scatter steps then W-1 all-gather steps. */
export function allReduceSchedule(rank: number, world: number): RingStep[] {
  checkWorld(world);
  const steps: RingStep[] = [];
  for (let i = 0; i < world - 1; i++) steps.push(reduceScatterStep(rank, world, i, 'baidu'));
  for (let i = 0; i < world - 1; i++) steps.push(allGatherStep(rank, world, i, 'baidu', world - 1));
  return steps;
}

/**
 * Cuts [start, end) into consecutive slices of at most `maxElems` elements. An empty range gives
 * one empty slice, so every ring step still carries exactly one message (and so still synchronises).
 */
export function sliceRanges(range: Range, maxElems: number): Range[] {
  if (!Number.isInteger(maxElems) || maxElems < 1)
    throw new RangeError(`slice size must be an integer >= 1, got ${maxElems}`);
  if (range.end <= range.start) return [{ start: range.start, end: range.start }];
  const out: Range[] = [];
  for (let a = range.start; a < range.end; a += maxElems)
    out.push({ start: a, end: Math.min(a + maxElems, range.end) });
  return out;
}
