// The import protocol over any DatasetStore: store chunks content-addressed (checksum first, so no
// storage transaction spans an await on hashing), then swap the manifest (the commit point), then
// delete chunks no manifest references. A failure before the swap leaves the old dataset as it was;
// abort() removes what this import stored, and collectGarbage() what a crashed one left behind.
import { DATASET_NAME, computeVersion, parseManifest, type ManifestDraft } from './manifest.ts';
import { describe } from './errors.ts';
import { sha256Hex } from './hash.ts';
import type { ChunkInfo, DatasetManifest, DatasetStore } from './store.ts';

/** Result of committing a manifest. */
export interface CommitResult {
  readonly manifest: DatasetManifest;
  /** True when the stored dataset already had this exact content: nothing was swapped. */
  readonly unchanged: boolean;
  /** Chunks of the previous version deleted after the swap. */
  readonly deletedChunks: number;
}

/** Checksums a raw (unvalidated) manifest references; used for garbage decisions, so never throws. */
export function rawReferences(raw: unknown): string[] {
  const out: string[] = [];
  if (typeof raw !== 'object' || raw === null) return out;
  const splits = (raw as { splits?: unknown }).splits;
  if (typeof splits !== 'object' || splits === null) return out;
  for (const s of Object.values(splits as Record<string, unknown>)) {
    const chunks = (s as { chunks?: unknown } | null)?.chunks;
    if (!Array.isArray(chunks)) continue;
    for (const c of chunks) {
      const sha = (c as { sha256?: unknown } | null)?.sha256;
      if (typeof sha === 'string') out.push(sha);
    }
  }
  return out;
}

/** Checksums referenced by any committed manifest in the store. */
export async function liveChunks(store: DatasetStore): Promise<Set<string>> {
  const live = new Set<string>();
  for (const raw of await store.listManifests()) for (const sha of rawReferences(raw)) live.add(sha);
  return live;
}

/** Writes one new version of dataset `name` into `store`. */
export class DatasetWriter {
  /** Checksums this import stored (absent or corrupt before). */
  private readonly fresh = new Set<string>();
  private written = 0;
  private reused = 0;
  private bytes = 0;
  /** Problems that did not fail the import (e.g. old chunks that could not be deleted). */
  readonly warnings: string[] = [];

  constructor(
    private readonly store: DatasetStore,
    readonly name: string,
  ) {
    if (!DATASET_NAME.test(name))
      throw new RangeError(`dataset name '${name}' must be 1-64 letters, digits, '-' or '_'`);
  }

  /** Chunks written / found already stored, and bytes written. */
  get stats(): { written: number; reused: number; bytesWritten: number } {
    return { written: this.written, reused: this.reused, bytesWritten: this.bytes };
  }

  /** Deletes stored chunks that no committed manifest references (an interrupted import's leftovers). */
  async collectGarbage(): Promise<number> {
    const live = await liveChunks(this.store);
    const dead = (await this.store.listChunks()).filter((k) => !live.has(k));
    if (dead.length > 0) await this.store.deleteChunks(dead);
    return dead.length;
  }

  /**
   * Stores `bytes` (whole records of `file`) unless a chunk with the same checksum is already stored
   * intact; a stored copy that fails its checksum is overwritten. Returns the manifest entry.
   */
  async putChunk(bytes: Uint8Array, records: number, file: string): Promise<ChunkInfo> {
    const sha256 = await sha256Hex(bytes);
    const existing = await this.store.getChunk(sha256);
    if (existing && existing.byteLength === bytes.byteLength && (await sha256Hex(existing)) === sha256) {
      this.reused++;
    } else {
      await this.store.putChunk(sha256, bytes);
      this.fresh.add(sha256);
      this.written++;
      this.bytes += bytes.byteLength;
    }
    return { sha256, records, bytes: bytes.byteLength, file };
  }

  /** Swaps in the new manifest (unless identical content is already stored), then deletes old chunks. */
  async commit(draft: ManifestDraft): Promise<CommitResult> {
    if (draft.name !== this.name) throw new RangeError(`manifest names '${draft.name}', writer writes '${this.name}'`);
    const version = await computeVersion(draft);
    const oldRaw = await this.store.getManifest(this.name);
    let old: DatasetManifest | undefined;
    try {
      old = oldRaw === undefined ? undefined : await parseManifest(oldRaw, this.name);
    } catch {
      old = undefined; // a damaged manifest is simply replaced
    }
    if (old && old.version === version) return { manifest: old, unchanged: true, deletedChunks: 0 };
    const manifest: DatasetManifest = { ...draft, version, created: new Date().toISOString() };
    await this.store.putManifest(manifest);
    let deletedChunks = 0;
    try {
      const live = await liveChunks(this.store);
      const dead = [...new Set(rawReferences(oldRaw))].filter((k) => !live.has(k));
      if (dead.length > 0) await this.store.deleteChunks(dead);
      deletedChunks = dead.length;
    } catch (e) {
      this.warnings.push(
        `could not delete the previous version's chunks (they will be collected by the next import): ${describe(e)}`,
      );
    }
    return { manifest, unchanged: false, deletedChunks };
  }

  /** After a failed import: deletes the chunks it stored that no committed manifest references. */
  async abort(): Promise<void> {
    if (this.fresh.size === 0) return;
    try {
      const live = await liveChunks(this.store);
      const dead = [...this.fresh].filter((k) => !live.has(k));
      if (dead.length > 0) await this.store.deleteChunks(dead);
    } catch {
      // Best effort: collectGarbage() at the next import removes anything left.
    }
  }
}
