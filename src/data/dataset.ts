// Reading a stored dataset: open it by name (manifest validated), read chunks with their SHA-256
// verified, list and delete datasets.
import { ChecksumMismatchError, DatasetNotFoundError } from './store-errors.ts';
import { liveChunks, rawReferences } from './dataset-writer.ts';
import { sha256Hex } from './hash.ts';
import { ChunkIndex, parseManifest } from './manifest.ts';
import type { DatasetManifest, DatasetStore, Split } from './store.ts';

/** An opened dataset: its manifest and verified chunk reads. */
export class Dataset {
  private readonly indices: Record<Split, ChunkIndex>;

  constructor(
    readonly store: DatasetStore,
    readonly manifest: DatasetManifest,
  ) {
    this.indices = { train: new ChunkIndex(manifest.splits.train), test: new ChunkIndex(manifest.splits.test) };
  }

  get name(): string {
    return this.manifest.name;
  }

  /** Records in `split`. */
  size(split: Split): number {
    return this.manifest.splits[split].records;
  }

  /** Locates records of `split` in its chunks. */
  index(split: Split): ChunkIndex {
    return this.indices[split];
  }

  /**
   * Chunk `i` of `split`: whole 3073-byte records, SHA-256 verified against the manifest.
   * Throws ChecksumMismatchError when the stored bytes are corrupt or missing.
   */
  async readChunk(split: Split, i: number): Promise<Uint8Array> {
    const info = this.manifest.splits[split].chunks[i];
    if (!info)
      throw new RangeError(
        `dataset '${this.name}': ${split} has ${this.manifest.splits[split].chunks.length} chunks, no chunk ${i}`,
      );
    const bytes = await this.store.getChunk(info.sha256);
    if (!bytes) throw new ChecksumMismatchError(this.name, split, i, info.sha256, 'missing');
    const actual = await sha256Hex(bytes);
    if (actual !== info.sha256 || bytes.byteLength !== info.bytes)
      throw new ChecksumMismatchError(this.name, split, i, info.sha256, actual);
    return bytes;
  }

  /** Reads and verifies every chunk (one at a time); throws on the first bad one. */
  async verify(): Promise<void> {
    for (const split of ['train', 'test'] as const) {
      for (let i = 0; i < this.manifest.splits[split].chunks.length; i++) await this.readChunk(split, i);
    }
  }
}

/** Opens dataset `name`; throws DatasetNotFoundError or ManifestError. */
export async function openDataset(store: DatasetStore, name: string): Promise<Dataset> {
  const raw = await store.getManifest(name);
  if (raw === undefined) throw new DatasetNotFoundError(name, store.where);
  return new Dataset(store, await parseManifest(raw, name));
}

/** The manifest of `name`, or undefined when none is stored. */
export async function readManifest(store: DatasetStore, name: string): Promise<DatasetManifest | undefined> {
  const raw = await store.getManifest(name);
  return raw === undefined ? undefined : parseManifest(raw, name);
}

/** Every valid stored manifest (invalid ones are skipped). */
export async function listDatasets(store: DatasetStore): Promise<DatasetManifest[]> {
  const out: DatasetManifest[] = [];
  for (const raw of await store.listManifests()) {
    const name = (raw as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') continue;
    try {
      out.push(await parseManifest(raw, name));
    } catch {
      // skipped: openDataset(name) reports why
    }
  }
  return out;
}

/** Deletes dataset `name`: its manifest first (so it is gone at once), then its unshared chunks. */
export async function deleteDataset(store: DatasetStore, name: string): Promise<boolean> {
  const raw = await store.getManifest(name);
  if (raw === undefined) return false;
  await store.deleteManifest(name);
  const live = await liveChunks(store);
  const dead = [...new Set(rawReferences(raw))].filter((k) => !live.has(k));
  if (dead.length > 0) await store.deleteChunks(dead);
  return true;
}
