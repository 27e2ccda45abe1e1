// The DatasetStore interface both backends implement (IndexedDB in store-idb.ts, a directory in
// store-file-node.ts), and the manifest that describes one stored dataset. Chunks are stored
// content-addressed (key = SHA-256 of the bytes), so identical data is written once; the manifest
// is the commit point: an import writes all its chunks, then swaps the manifest, then deletes
// chunks no manifest references (dataset-writer.ts).

/** The two splits of a CIFAR-format dataset. */
export type Split = 'train' | 'test';
export const SPLITS: readonly Split[] = ['train', 'test'];

/** One stored chunk: a run of whole 3073-byte records from one source file. */
export interface ChunkInfo {
  /** Lower-case hex SHA-256 of the chunk's bytes; also its storage key. */
  readonly sha256: string;
  readonly records: number;
  readonly bytes: number;
  /** The source file the records came from (e.g. data_batch_3.bin). */
  readonly file: string;
}

export interface SplitInfo {
  readonly records: number;
  /** Source files, in dataset order. */
  readonly files: readonly string[];
  /** Chunks, in dataset order: record i of the split is in the chunk whose prefix range holds i. */
  readonly chunks: readonly ChunkInfo[];
}

export interface DatasetSource {
  readonly kind: 'archive' | 'files' | 'url' | 'synthetic';
  /** A file name, URL or generator description. */
  readonly description: string;
  /** Archive entries or files that were present but not imported. */
  readonly ignored: readonly string[];
}

/** What one stored dataset is; written last by an import (the commit marker). */
export interface DatasetManifest {
  readonly format: 1;
  /** Dataset name, e.g. 'cifar10' or 'synthetic'. */
  readonly name: string;
  /** SHA-256 over the content fields (name, classes, splits, record size): equal content, equal id. */
  readonly version: string;
  /** ISO 8601 time of the import that first stored this version. */
  readonly created: string;
  readonly source: DatasetSource;
  readonly recordBytes: number;
  /** Class names in label order (from batches.meta.txt). */
  readonly classes: readonly string[];
  readonly splits: Readonly<Record<Split, SplitInfo>>;
}

/**
 * Raw storage for datasets. Implementations need no knowledge of the format: the import protocol
 * (dataset-writer.ts) and verified reads (dataset.ts) are built on these primitives.
 * Single writer: one import at a time per store (browsers serialise through withImportLock).
 */
export interface DatasetStore {
  /** Where the data lives, for messages ("IndexedDB webddp-datasets/datasets", a directory). */
  readonly where: string;
  /** The committed manifest of `name` as stored (unvalidated), or undefined. */
  getManifest(name: string): Promise<unknown>;
  /** Every committed manifest (unvalidated). */
  listManifests(): Promise<unknown[]>;
  /** Atomically replaces the manifest of `manifest.name`: the commit point of an import. */
  putManifest(manifest: DatasetManifest): Promise<void>;
  deleteManifest(name: string): Promise<void>;
  /** A chunk's bytes as stored (unverified), or undefined when absent. */
  getChunk(sha256: string): Promise<Uint8Array | undefined>;
  /** Stores a chunk under its checksum; either the whole chunk is stored or none of it. */
  putChunk(sha256: string, bytes: Uint8Array): Promise<void>;
  deleteChunks(sha256s: readonly string[]): Promise<void>;
  /** Checksums of every stored chunk, referenced or not. */
  listChunks(): Promise<string[]>;
  /** Asks for persistent storage; true/false when the platform answered, undefined when it cannot. */
  persist?(): Promise<boolean | undefined>;
  /** Throws StorageQuotaError early when about `bytes` more clearly will not fit. */
  checkSpace?(bytes: number): Promise<void>;
  /** Runs `fn` holding a store-wide import lock (Web Locks in browsers). */
  withImportLock?<T>(fn: () => Promise<T>): Promise<T>;
}
