// Options, progress reports and results of the CIFAR-10 importers (import.ts, import-node.ts).
import type { DatasetManifest, DatasetSource } from './store.ts';

/** What an import is doing: reading (and validating and storing chunks), swapping the manifest, finished. */
export type ImportPhase = 'reading' | 'committing' | 'done';

export interface ImportProgress {
  readonly phase: ImportPhase;
  /** Source bytes consumed so far (compressed bytes for an archive). */
  readonly bytesRead: number;
  /** Source size when known (file size, Content-Length). */
  readonly totalBytes: number | undefined;
  /** The member or file being read. */
  readonly file: string | undefined;
  /** Records validated and stored so far. */
  readonly records: number;
}

/** A named byte source, e.g. a browser File (name, size, stream()) or a Node file (import-node.ts). */
export interface ByteSource {
  readonly name: string;
  readonly size?: number;
  stream(): ReadableStream<Uint8Array>;
}

export interface ImportOptions {
  /** Dataset name in the store (default 'cifar10'). */
  readonly name?: string;
  readonly onProgress?: (p: ImportProgress) => void;
  /** Cancels the import; nothing is committed and ImportAbortedError is thrown. */
  readonly signal?: AbortSignal;
  /** Records per stored chunk (default 5000: 14.7 MiB). */
  readonly recordsPerChunk?: number;
  /** Require exactly this many records in every .bin file (10000 for the real CIFAR-10); default: any. */
  readonly recordsPerFile?: number;
  /** Cap on an archive's decompressed size (default 256 MiB; the real tar is 184 MB). */
  readonly maxDecompressedBytes?: number;
  /** Name of the source in messages (default: the URL, or 'cifar-10-binary.tar.gz'). */
  readonly sourceName?: string;
  /** Source size when the caller knows it (for progress and the free-space check). */
  readonly totalBytes?: number;
  /** Overrides the manifest's source kind and description (the synthetic generator uses this). */
  readonly source?: Omit<DatasetSource, 'ignored'>;
}

export interface ImportResult {
  /** The committed manifest (the previous one when `unchanged`). */
  readonly manifest: DatasetManifest;
  /** The store already held exactly this content: nothing was swapped. */
  readonly unchanged: boolean;
  /** Archive entries or files present but not part of the dataset. */
  readonly ignored: readonly string[];
  /** navigator.storage.persist()'s answer; undefined where it cannot be asked (Node, workers). */
  readonly persisted: boolean | undefined;
  readonly chunksWritten: number;
  /** Chunks already stored intact (identical content), not written again. */
  readonly chunksReused: number;
  readonly bytesWritten: number;
  /** Problems that did not fail the import. */
  readonly warnings: readonly string[];
}

/** Default dataset name for CIFAR-10. */
export const DEFAULT_DATASET = 'cifar10';
/** Default cap on decompressed archive bytes. */
export const DEFAULT_MAX_DECOMPRESSED = 256 * 2 ** 20;
