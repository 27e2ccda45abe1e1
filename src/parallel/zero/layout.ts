// ZeRO's partitions and the bounded layouts of stage 2's gradient bucket and stage 3's parameter
// working buffer: every layer's parameters at offset 0 (layer-relative), sized for the largest
// layer that is not cut into pieces, or for one piece of a large Linear layer (train/piece-shape.ts; train/linear-pieces.ts records the pieces on the GPU).
import { chunkRange, type Range } from '../../comm/ring-schedule.ts';
import type { ModelSpec, ParamSpec } from '../../nn/spec.ts';
import type { GradientLayout } from '../../train/trainer.ts';
import { BUCKET, pieceShape } from '../../train/piece-shape.ts';

/**
 * Rank `rank`'s ZeRO partition of a `total`-element arena (reduce_scatter_tensor's shard). fp16:
 * the shard of the ceil(total / 2) words of packed halves, in elements (so it starts on a word).
 */
export function zeroPartition(rank: number, world: number, total: number, fp16 = false): Range {
  if (!fp16) return chunkRange(rank, total, world);
  const w = chunkRange(rank, Math.ceil(total / 2), world);
  return { start: Math.min(2 * w.start, total), end: Math.min(2 * w.end, total) };
}

export interface LayerRange {
  readonly layer: string;
  /** First element of the layer's parameters in the flat arena, and their count (weight then bias). */
  readonly start: number;
  readonly size: number;
  readonly params: readonly ParamSpec[];
  /** A Linear layer larger than one bucket: computed in pieces. */
  readonly large: boolean;
}

const layerOf = (p: ParamSpec) => p.name.slice(0, p.name.lastIndexOf('.'));

/** The model's layers that have parameters, in forward order. */
export function layerRanges(spec: ModelSpec, bucket = BUCKET): LayerRange[] {
  const out = new Map<string, ParamSpec[]>();
  for (const p of spec.params) out.set(layerOf(p), [...(out.get(layerOf(p)) ?? []), p]);
  return [...out.entries()].map(([layer, params]) => {
    const size = params.reduce((a, p) => a + p.size, 0);
    const linear = params[0]?.shape.length === 2;
    return { layer, start: params[0]?.offset ?? 0, size, params, large: linear && size > bucket };
  });
}

/**
 * A bounded layer-relative layout: the largest layer kept whole, or the largest piece of a large
 * Linear(i, o) (rows x (i + 1) floats of weight and bias; for `withColumns`, also o x cols of
 * weight columns). For SimpleCNN at width 1 that is fc1's row piece, 15 x 4097 = 61,455 floats
 * (240 KiB), against 545,098 for the whole model and 524,416 for fc1. A Conv2d layer is never cut,
 * so at larger widths the bound is the largest conv layer (conv2: 18,432 w^2 + 64 w floats).
 */
export function bucketLayout(spec: ModelSpec, label: string, withColumns: boolean, bucket = BUCKET): GradientLayout {
  const layers = layerRanges(spec, bucket);
  const sizes = layers.map((l) => {
    if (!l.large) return l.size;
    const [o = 0, i = 0] = l.params[0]?.shape ?? [];
    const { rows, cols } = pieceShape(o, i, bucket);
    return Math.max(Math.min(o, rows) * (i + 1), withColumns ? o * Math.min(i, cols) : 0);
  });
  const start = new Map(layers.map((l) => [l.layer, l.start]));
  return {
    label,
    size: Math.max(1, ...sizes),
    offset: (p) => p.offset - (start.get(layerOf(p)) ?? 0),
  };
}

/**
 * A layer and rank r's chunk of it (ZeRO-3): `own` within the layer, at `at` in the rank's
 * partition; `w`: the layer's first word in the gathered halves. fp16: the chunk is cut on words
 * (zeroPartition(..., fp16)) and `at` stays even, so the chunk's halves start on a word.
 */
export interface OwnedChunk {
  readonly l: LayerRange;
  readonly own: Range;
  readonly at: number;
  readonly w: number;
}

/** Every layer's chunk on rank `rank`, and the partition's length in elements (fp16: words x 2). */
export function ownedChunks(
  spec: ModelSpec,
  rank: number,
  world: number,
  bucket: number,
  fp16: boolean,
): { owned: OwnedChunk[]; count: number } {
  let at = 0;
  let w = 0;
  const owned = layerRanges(spec, bucket).map((l) => {
    const own = zeroPartition(rank, world, l.size, fp16);
    const o = { l, own, at, w };
    at += fp16 ? 2 * Math.ceil((own.end - own.start) / 2) : own.end - own.start;
    w += Math.ceil(l.size / 2);
    return o;
  });
  return { owned, count: at };
}
