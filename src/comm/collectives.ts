// The ring collectives: in-place SUM all-reduce (reduce-scatter then all-gather, 2(W-1) steps,
// Baidu ordering), and reduce-scatter and all-gather on their own (torch ownership: rank r owns
// chunk r, as reduce_scatter_tensor / all_gather_into_tensor and ZeRO shards). Every rank ends
// with the same bits: each chunk is summed once, along the ring, and then only copied.
// Sum order of chunk c in all-reduce: ((x_c + x_{c+1}) + x_{c+2}) + ... (indices mod W), in float32.
import type { Link } from './link.ts';
import { checkRank, guarded, runRingStep, sliceElemsFor } from './ring-step.ts';
import type { CollectiveOptions, RingAdd } from './ring-step.ts';
import { allGatherStep, chunkRange, reduceScatterStep } from './ring-schedule.ts';
import type { Range } from './ring-schedule.ts';

export type { CollectiveOptions } from './ring-step.ts';

/** Options of ringAllReduce and reduceScatter. */
export interface AllReduceOptions extends CollectiveOptions {
  /**
   * Average instead of sum, the way PyTorch DDP's reducer does it: each rank first multiplies its
   * data by float32(1/W) (torch's GradBucket division by the world size), then the ring sums.
   * Exact when W is a power of two.
   */
  readonly average?: boolean;
  /**
   * `data` holds packed fp16 pairs (two halves in each element's bits, as pack2x16float packs them)
   * and sums are IEEE half additions, rounded once each (PyTorch's fp16_compress_hook all-reduces
   * fp16 like this, at half the bytes). Not with `average`.
   */
  readonly halves?: boolean;
  /**
   * `data` holds packed bfloat16 pairs (src/numeric/bf16.ts) and sums are bfloat16 additions,
   * rounded once each (NCCL's bf16 sum; DeepSpeed's bf16 all-reduce). Not with `average` or `halves`.
   */
  readonly bf16?: boolean;
}

/** A view of packed fp16 pairs as the Float32Array elements the ring moves (bits untouched). */
export function halvesView(words: Uint32Array): Float32Array {
  return new Float32Array(words.buffer, words.byteOffset, words.length);
}

const addOf = (opts: AllReduceOptions | undefined): RingAdd => {
  if (opts?.halves && opts.average) throw new RangeError('average is not defined for fp16 halves (pre-scale them)');
  if (opts?.bf16 && (opts.average || opts.halves))
    throw new RangeError('bf16 pairs take neither average nor halves (pre-scale them)');
  return opts?.bf16 ? 'add-bf16' : opts?.halves ? 'add-f16' : 'add';
};

/** This rank's fully reduced chunk after reduceScatter: a view into the caller's buffer, and its range. */
export interface ReducedChunk extends Range {
  readonly chunk: Float32Array;
}

/** Multiplies every element by float32(1 / world), rounding to float32 (DDP's pre-division). */
export function prescaleForAverage(data: Float32Array, world: number): void {
  const f = Math.fround(1 / world);
  if (f === 1) return;
  for (let i = 0; i < data.length; i++) data[i] = (data[i] ?? 0) * f;
}

/**
 * In-place ring all-reduce (SUM, or DDP-style average): afterwards `data` holds the element-wise
 * sum over all ranks, bit-identical on every rank. Every rank calls it with the same length.
 * Rejects (and aborts the group) on timeout, peer failure or mismatch.
 */
export async function ringAllReduce(
  data: Float32Array,
  rank: number,
  world: number,
  link: Link,
  opts?: AllReduceOptions,
): Promise<Float32Array> {
  return allReduceAs('allReduce', data, rank, world, link, opts);
}

/** ringAllReduce under another op name (for fingerprints), shared with barrier. */
export async function allReduceAs(
  op: 'allReduce' | 'barrier',
  data: Float32Array,
  rank: number,
  world: number,
  link: Link,
  opts?: AllReduceOptions,
): Promise<Float32Array> {
  return guarded(link, async () => {
    checkRank(link, rank, world);
    const fp = link.beginCollective(op, data.length);
    const sliceElems = sliceElemsFor(link, opts);
    const add = addOf(opts);
    if (opts?.average === true) prescaleForAverage(data, world);
    if (world === 1) return data;
    for (let i = 0; i < world - 1; i++)
      await runRingStep(link, fp, data, reduceScatterStep(rank, world, i, 'baidu'), add, sliceElems);
    for (let i = 0; i < world - 1; i++)
      await runRingStep(link, fp, data, allGatherStep(rank, world, i, 'baidu', world - 1), 'copy', sliceElems);
    return data;
  });
}

/**
 * In-place ring reduce-scatter (SUM, or DDP-style average), W-1 steps: returns chunk `rank` of the
 * element-wise sum (a view of `data`) and its range, chunkRange(rank, n, W): the shard this rank
 * owns under ZeRO. Outside that range `data` holds partial sums afterwards.
 */
export async function reduceScatter(
  data: Float32Array,
  rank: number,
  world: number,
  link: Link,
  opts?: AllReduceOptions,
): Promise<ReducedChunk> {
  return guarded(link, async () => {
    checkRank(link, rank, world);
    const fp = link.beginCollective('reduceScatter', data.length);
    const sliceElems = sliceElemsFor(link, opts);
    const add = addOf(opts);
    if (opts?.average === true) prescaleForAverage(data, world);
    const range = chunkRange(rank, data.length, world);
    const result = { ...range, chunk: data.subarray(range.start, range.end) };
    if (world === 1) return result;
    for (let i = 0; i < world - 1; i++)
      await runRingStep(link, fp, data, reduceScatterStep(rank, world, i, 'torch'), add, sliceElems);
    return result;
  });
}

/**
 * In-place ring all-gather, W-1 steps: on entry `data` holds this rank's contribution in chunk
 * `rank` (chunkRange(rank, data.length, world)); on exit every chunk holds its owner's contribution.
 */
export async function allGather(
  data: Float32Array,
  rank: number,
  world: number,
  link: Link,
  opts?: CollectiveOptions,
): Promise<Float32Array> {
  return allGatherAs('allGather', data, rank, world, link, opts);
}

/** allGather under another op name (for fingerprints), shared with the scalar all-reduce. */
export async function allGatherAs(
  op: 'allGather' | 'allReduceScalars',
  data: Float32Array,
  rank: number,
  world: number,
  link: Link,
  opts?: CollectiveOptions,
  n = data.length,
): Promise<Float32Array> {
  return guarded(link, async () => {
    checkRank(link, rank, world);
    const fp = link.beginCollective(op, n);
    const sliceElems = sliceElemsFor(link, opts);
    if (world === 1) return data;
    for (let i = 0; i < world - 1; i++)
      await runRingStep(link, fp, data, allGatherStep(rank, world, i, 'torch'), 'copy', sliceElems);
    return data;
  });
}
