// DDP gradient buckets as PyTorch's Reducer builds them after its first iteration
// (torch/csrc/distributed/c10d/reducer.cpp compute_bucket_assignment_by_size): parameters in
// gradient-ready order (here: reverse registration order, since backward runs fc2 -> conv1), a
// bucket closes once its size reaches the limit (so it may overshoot by one tensor); the first
// bucket's limit is 1 MiB, later ones bucket_cap_mb (25 MiB by default). Because the flat arena is
// in registration order, every bucket is one contiguous range of it.
import type { ParamSpec } from '../../nn/spec.ts';

export const FIRST_BUCKET_BYTES = 1024 * 1024;

export interface Bucket {
  readonly index: number;
  /** Parameters in the bucket, in ready order. */
  readonly params: readonly ParamSpec[];
  /** Contiguous element range [offset, offset + count) of the flat arena. */
  readonly offset: number;
  readonly count: number;
}

export function computeBuckets(params: readonly ParamSpec[], capMB = 25, firstBytes = FIRST_BUCKET_BYTES): Bucket[] {
  if (!(capMB > 0)) throw new RangeError(`bucket cap must be > 0 MiB (got ${capMB})`);
  const limits = [firstBytes, Math.floor(capMB * 1024 * 1024)];
  const buckets: Bucket[] = [];
  let current: ParamSpec[] = [];
  let bytes = 0;
  const close = () => {
    const offset = Math.min(...current.map((p) => p.offset));
    const count = current.reduce((a, p) => a + p.size, 0);
    buckets.push({ index: buckets.length, params: current, offset, count });
    current = [];
    bytes = 0;
  };
  for (const p of [...params].reverse()) {
    current.push(p);
    bytes += p.size * 4;
    if (bytes >= (limits[Math.min(buckets.length, 1)] ?? Infinity)) close();
  }
  if (current.length > 0) close();
  return buckets;
}
