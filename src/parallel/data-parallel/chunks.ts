// How DataParallel splits a global batch over devices (torch.chunk semantics in
// torch/nn/parallel/scatter_gather.py: chunks of ceil(B/W), the last smaller, possibly fewer than
// W chunks) and how BalancedDataParallel does it (transformer-xl's utils/data_parallel.py:
// gpu0_bsz samples on device 0, the rest shared equally, the remainder to devices 1..).
// Each list has one entry per device; 0 means the device gets no data this step.
import type { TrainConfig } from '../../config.ts';

/** A mode's split of a global batch of `batch` samples over `world` devices. */
export type ChunkRule = (batch: number, world: number, c: TrainConfig) => number[];

export function dataParallelChunks(batch: number, world: number): number[] {
  check(batch, world);
  const size = Math.ceil(batch / world);
  return Array.from({ length: world }, (_, r) => Math.max(0, Math.min(size, batch - r * size)));
}

export function balancedChunks(batch: number, world: number, gpu0Bsz: number): number[] {
  check(batch, world);
  if (!Number.isInteger(gpu0Bsz) || gpu0Bsz < 0)
    throw new RangeError(`gpu0_bsz must be an integer >= 0 (got ${gpu0Bsz})`);
  if (world === 1) return [batch];
  const unit = Math.floor((batch - gpu0Bsz) / (world - 1));
  if (gpu0Bsz >= unit) return dataParallelChunks(batch, world); // transformer-xl falls back to DataParallel's split
  const sizes = [gpu0Bsz, ...Array.from({ length: world - 1 }, () => unit)];
  const delta = batch - sizes.reduce((a, b) => a + b, 0);
  for (let i = 0; i < delta; i++) sizes[i + 1] = (sizes[i + 1] ?? 0) + 1;
  return sizes;
}

function check(batch: number, world: number): void {
  if (!Number.isInteger(batch) || batch < 1) throw new RangeError(`batch must be an integer >= 1 (got ${batch})`);
  if (!Number.isInteger(world) || world < 1) throw new RangeError(`world size must be an integer >= 1 (got ${world})`);
}
