// Small collectives: a barrier, and an all-reduce of a few float64 scalars (a global gradient norm
// for ZeRO's clip_grad_norm_, a loss or sample-count sum). The scalars travel as raw float64 bits
// (two float32 words each, moved only by copies, so no bit is touched) in an all-gather; then every
// rank sums them in rank order 0..W-1 in float64: the result is the same bits on every rank and
// does not depend on ring positions.
import { allGatherAs, allReduceAs } from './collectives.ts';
import type { Link } from './link.ts';

/**
 * Sum of `values` over all ranks, element-wise, in float64 (rank order 0..W-1). Every rank passes
 * the same number of values.
 */
export async function allReduceScalars(
  values: ArrayLike<number>,
  rank: number,
  world: number,
  link: Link,
): Promise<Float64Array> {
  const k = values.length;
  const all = new Float64Array(world * k);
  for (let j = 0; j < k; j++) all[rank * k + j] = values[j] ?? 0;
  await allGatherAs('allReduceScalars', new Float32Array(all.buffer), rank, world, link, undefined, k);
  const out = new Float64Array(k);
  for (let r = 0; r < world; r++) for (let j = 0; j < k; j++) out[j] = (out[j] ?? 0) + (all[r * k + j] ?? 0);
  return out;
}

/**
 * Resolves on a rank only after every rank has entered the barrier (a one-element all-reduce:
 * nobody's result can be complete before everyone has sent). Rejects on timeout or peer failure.
 */
export async function barrier(rank: number, world: number, link: Link): Promise<void> {
  const one = new Float32Array([1]);
  await allReduceAs('barrier', one, rank, world, link);
  if (one[0] !== world) throw new Error(`rank ${rank}: barrier counted ${one[0]} ranks, expected ${world}`);
}
