// A worker's own records: given a split and the sampler's index list (dataset indices, repeats
// allowed, e.g. DistributedSampler's padding), read just those records chunk by chunk (one chunk
// in memory at a time, each SHA-256 verified) into a compact Shard in the sampler's order. Ranks
// sharing a device share their chunk reads while their loads overlap (chunk-reads.ts).
import type { SharedChunkReads } from './chunk-reads.ts';
import { IMAGE_BYTES, RECORD_BYTES } from './cifar.ts';
import type { Dataset } from './dataset.ts';
import type { Split } from './store.ts';

/** Images and labels of a list of dataset records; position p holds record indices[p]. */
export interface Shard {
  readonly split: Split;
  /** The dataset index of each position. */
  readonly indices: Int32Array;
  /** [n, 3, 32, 32] bytes, position-major. */
  readonly images: Uint8Array;
  /** [n] labels 0..9. */
  readonly labels: Uint8Array;
}

export interface LoadShardOptions {
  /** Called after each chunk read: chunks done and chunks needed. */
  readonly onChunk?: (done: number, total: number) => void;
  /** Chunk reads shared with the loads of the other ranks of this worker (ranks sharing a device). */
  readonly shared?: SharedChunkReads;
}

/**
 * Loads records `indices` of `split`. Throws RangeError for an index outside the split (naming the
 * position), ChecksumMismatchError for a corrupt chunk.
 */
export async function loadShard(
  dataset: Dataset,
  split: Split,
  indices: Int32Array,
  opts: LoadShardOptions = {},
): Promise<Shard> {
  const { shared } = opts;
  return shared
    ? shared.during(() => load(dataset, split, indices, opts, shared))
    : load(dataset, split, indices, opts);
}

async function load(
  dataset: Dataset,
  split: Split,
  indices: Int32Array,
  opts: LoadShardOptions,
  shared?: SharedChunkReads,
): Promise<Shard> {
  const n = indices.length;
  const index = dataset.index(split);
  const chunkCount = dataset.manifest.splits[split].chunks.length;
  // Chunk of every position, then positions grouped by chunk (counting sort).
  const chunkOf = new Int32Array(n);
  const perChunk = new Int32Array(chunkCount + 1);
  for (let p = 0; p < n; p++) {
    const d = indices[p] ?? -1;
    if (!Number.isInteger(d) || d < 0 || d >= index.records) {
      throw new RangeError(
        `loadShard: position ${p} asks for ${split} record ${d}, but '${dataset.name}' ${split} has ${index.records} records`,
      );
    }
    const c = index.chunkOf(d);
    chunkOf[p] = c;
    perChunk[c + 1] = (perChunk[c + 1] ?? 0) + 1;
  }
  for (let c = 0; c < chunkCount; c++) perChunk[c + 1] = (perChunk[c + 1] ?? 0) + (perChunk[c] ?? 0);
  const fillAt = perChunk.slice();
  const order = new Int32Array(n);
  for (let p = 0; p < n; p++) {
    const c = chunkOf[p] ?? 0;
    order[fillAt[c] ?? 0] = p;
    fillAt[c] = (fillAt[c] ?? 0) + 1;
  }
  const images = new Uint8Array(n * IMAGE_BYTES);
  const labels = new Uint8Array(n);
  const needed = [...Array(chunkCount).keys()].filter((c) => (perChunk[c + 1] ?? 0) > (perChunk[c] ?? 0));
  let done = 0;
  for (const c of needed) {
    const sha = dataset.manifest.splits[split].chunks[c]?.sha256 ?? '';
    const bytes = await (shared
      ? shared.read(`${dataset.name}/${split}/${c}/${sha}`, () => dataset.readChunk(split, c))
      : dataset.readChunk(split, c));
    const first = index.starts[c] ?? 0;
    for (let k = perChunk[c] ?? 0; k < (perChunk[c + 1] ?? 0); k++) {
      const p = order[k] ?? 0;
      const at = ((indices[p] ?? 0) - first) * RECORD_BYTES;
      labels[p] = bytes[at] ?? 0;
      images.set(bytes.subarray(at + 1, at + RECORD_BYTES), p * IMAGE_BYTES);
    }
    opts.onChunk?.(++done, needed.length);
  }
  return { split, indices: Int32Array.from(indices), images, labels };
}
