// Batches from a Shard: gather positions into contiguous NCHW bytes and int32 labels (what the GPU
// upload takes; the GPU normalises), optionally augmented (augment.ts).
import { IMAGE_BYTES } from './cifar.ts';
import type { Augmenter } from './augment.ts';
import type { Shard } from './shard.ts';

export interface ImageBatch {
  /** [B, 3, 32, 32] bytes. */
  readonly images: Uint8Array;
  /** [B] labels 0..9. */
  readonly labels: Int32Array;
}

/** What the trainer takes: uint8 CIFAR pixels (normalised on the GPU) or ready float input. */
export type Batch = ImageBatch | { readonly x: Float32Array; readonly labels: Int32Array };

/**
 * The images and labels at `positions` of `shard` (positions index the shard, not the dataset).
 * With `augment`, each image gets the augmenter's next crop/flip draw, in positions order.
 */
export function batch(shard: Shard, positions: ArrayLike<number>, augment?: Augmenter): ImageBatch {
  const n = shard.indices.length;
  const b = positions.length;
  const images = new Uint8Array(b * IMAGE_BYTES);
  const labels = new Int32Array(b);
  for (let i = 0; i < b; i++) {
    const p = positions[i] ?? -1;
    if (!Number.isInteger(p) || p < 0 || p >= n)
      throw new RangeError(`batch: position ${p} (batch item ${i}) is outside the shard's ${n} positions`);
    const src = shard.images.subarray(p * IMAGE_BYTES, (p + 1) * IMAGE_BYTES);
    const dst = images.subarray(i * IMAGE_BYTES, (i + 1) * IMAGE_BYTES);
    if (augment) augment.apply(src, dst);
    else dst.set(src);
    labels[i] = shard.labels[p] ?? 0;
  }
  return { images, labels };
}

/** Positions [start, start + size) clipped to the shard: batch `i` of size `size` in sampler order. */
export function batchPositions(shard: Shard, i: number, size: number): Int32Array {
  const start = i * size;
  const end = Math.min(shard.indices.length, start + size);
  const out = new Int32Array(Math.max(0, end - start));
  for (let k = 0; k < out.length; k++) out[k] = start + k;
  return out;
}
