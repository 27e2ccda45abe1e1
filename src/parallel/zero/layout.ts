// ZeRO's partitions and ZeRO-2's gradient scratch layout.
import { chunkRange, type Range } from '../../comm/ring-schedule.ts';
import type { ModelSpec, ParamSpec } from '../../nn/spec.ts';
import type { GradientLayout } from '../../train/trainer.ts';

/** Rank `rank`'s ZeRO partition of a `total`-element arena (reduce_scatter_tensor's shard). */
export function zeroPartition(rank: number, world: number, total: number): Range {
  return chunkRange(rank, total, world);
}

/** ZeRO-2's gradient scratch: every layer's parameters at offset 0, sized for the largest layer. */
export function layerScratchLayout(spec: ModelSpec): GradientLayout {
  const layerOf = (p: ParamSpec) => p.name.slice(0, p.name.lastIndexOf('.'));
  const start = new Map<string, number>();
  const size = new Map<string, number>();
  for (const p of spec.params) {
    const l = layerOf(p);
    if (!start.has(l)) start.set(l, p.offset);
    size.set(l, (size.get(l) ?? 0) + p.size);
  }
  return {
    label: 'grads.layer_scratch',
    size: Math.max(...size.values()),
    offset: (p) => p.offset - (start.get(layerOf(p)) ?? 0),
  };
}
