// The arithmetic of cutting a large Linear layer into bucket-sized pieces (linear-pieces.ts records
// them on the GPU): the default bucket, which layers are cut, and a piece's rows or columns. Pure,
// so ZeRO's layouts (parallel/zero/layout.ts) and the mode table load it without loading GPU code.

/**
 * webddp's default ZeRO bucket (TrainConfig.reduceBucketSize, DeepSpeed's reduce_bucket_size): 64 Ki
 * elements (256 KiB), the most one gradient or parameter piece holds.
 */
export const BUCKET = 64 * 1024;

/** Whether a layer's parameters exceed one bucket (then it is computed in pieces). */
export function isLarge(layer: { readonly params: readonly { readonly size: number }[] }, bucket = BUCKET): boolean {
  return layer.params.reduce((a, p) => a + p.size, 0) > bucket;
}

/** Shapes of a Linear(i, o)'s pieces: rows of weight + bias, or columns of the weight, within `bucket` floats. */
export function pieceShape(o: number, i: number, bucket = BUCKET): { rows: number; cols: number } {
  return { rows: Math.max(1, Math.floor(bucket / (i + 1))), cols: Math.max(1, Math.floor(bucket / o)) };
}
