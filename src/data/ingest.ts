// The part of an import that every source shares: take CIFAR files one at a time (any order),
// validate and chunk their records into the DatasetWriter, remember the class names, and build the
// manifest draft with the training files in dataset order. Checks names, duplicates and counts.
import {
  CIFAR10_CLASSES,
  MAX_META_BYTES,
  META_FILE,
  RECORD_BYTES,
  TEST_FILE,
  TRAIN_FILES,
  checkFileLength,
  parseMeta,
  type CifarBinFile,
} from './cifar.ts';
import type { DatasetWriter } from './dataset-writer.ts';
import { ArchiveContentsError, MetaError, RecordCountError } from './errors.ts';
import type { ManifestDraft } from './manifest.ts';
import { RecordChunker } from './records.ts';
import type { ChunkInfo, DatasetSource, SplitInfo } from './store.ts';
import { forEachChunk, readAll } from './streams.ts';

const MAX_IGNORED_NAME = 256;
const MAX_IGNORED_LISTED = 100;

interface FileResult {
  readonly chunks: ChunkInfo[];
  readonly records: number;
}

/** Which files an import must contain. */
export type Completeness =
  /** All five data_batch files, test_batch.bin and batches.meta.txt (the archive). */
  | 'archive'
  /** At least one data_batch file; test_batch.bin and batches.meta.txt optional (loose files). */
  | 'subset';

export class CifarIngest {
  private readonly files = new Map<CifarBinFile, FileResult>();
  private classes: string[] | undefined;
  private readonly seen = new Map<string, string>();
  /** Entries present in the source but not imported (bounded: see ignore()). */
  readonly ignored: string[] = [];
  private ignoredCount = 0;
  /** Records validated and stored so far. */
  records = 0;

  constructor(
    private readonly writer: DatasetWriter,
    private readonly source: string,
    private readonly recordsPerChunk: number,
    private readonly onStored: () => void = () => undefined,
    private readonly recordsPerFile?: number,
  ) {}

  private claim(file: string, path: string): void {
    const before = this.seen.get(file);
    if (before !== undefined)
      throw new ArchiveContentsError(
        this.source,
        [],
        `${file} appears twice (${before} and ${path}); refusing to guess which one is right`,
      );
    this.seen.set(file, path);
  }

  /** Imports one .bin file; `size` (when known up front) is checked before reading. */
  async addBin(file: CifarBinFile, path: string, body: ReadableStream<Uint8Array>, size?: number): Promise<void> {
    try {
      this.claim(file, path);
      if (size !== undefined) this.checkCount(checkFileLength(size, path), path);
    } catch (e) {
      await body.cancel().catch(() => undefined);
      throw e;
    }
    const chunks: ChunkInfo[] = [];
    const chunker = new RecordChunker(path, this.recordsPerChunk, async (bytes, records) => {
      chunks.push(await this.writer.putChunk(bytes, records, file));
      this.records += records;
      this.onStored();
    });
    await forEachChunk(body, (piece) => chunker.push(piece));
    const records = await chunker.finish();
    this.checkCount(records, path);
    this.files.set(file, { chunks, records });
  }

  private checkCount(records: number, path: string): void {
    if (this.recordsPerFile !== undefined && records !== this.recordsPerFile)
      throw new RecordCountError(path, records, this.recordsPerFile);
  }

  /** Reads batches.meta.txt (exactly 10 class names). */
  async addMeta(path: string, body: ReadableStream<Uint8Array>): Promise<void> {
    try {
      this.claim(META_FILE, path);
    } catch (e) {
      await body.cancel().catch(() => undefined);
      throw e;
    }
    const bytes = await readAll(body, MAX_META_BYTES, () => new MetaError(path, `larger than ${MAX_META_BYTES} bytes`));
    this.classes = parseMeta(bytes, path);
  }

  /**
   * Notes an entry that is not part of the dataset. The list is bounded (a hostile archive may hold
   * millions of entries with megabyte names): names are cut at 256 characters, and past 100 names
   * the last line counts the rest.
   */
  ignore(path: string): void {
    this.ignoredCount++;
    const name =
      path.length > MAX_IGNORED_NAME ? `${path.slice(0, MAX_IGNORED_NAME)}... (${path.length} characters)` : path;
    if (this.ignoredCount <= MAX_IGNORED_LISTED) this.ignored.push(name);
    else this.ignored[MAX_IGNORED_LISTED] = `... and ${this.ignoredCount - MAX_IGNORED_LISTED} more`;
  }

  /** Checks completeness and builds the manifest draft. */
  draft(name: string, source: Omit<DatasetSource, 'ignored'>, need: Completeness): ManifestDraft {
    const required = need === 'archive' ? [...TRAIN_FILES, TEST_FILE, META_FILE] : [];
    const missing = required.filter((f) => !this.seen.has(f));
    const ignoredNote =
      this.ignored.length > 0
        ? `; ignored: ${this.ignored.slice(0, 8).join(', ')}${this.ignored.length > 8 ? ', ...' : ''}`
        : '';
    if (missing.length > 0) {
      throw new ArchiveContentsError(
        this.source,
        missing,
        `not the CIFAR-10 binary archive: missing ${missing.map((f) => `cifar-10-batches-bin/${f}`).join(', ')}${ignoredNote}`,
      );
    }
    const trainFiles = TRAIN_FILES.filter((f) => this.files.has(f));
    if (trainFiles.length === 0) {
      throw new ArchiveContentsError(
        this.source,
        [...TRAIN_FILES],
        `no training file: give at least one of data_batch_1.bin .. data_batch_5.bin${ignoredNote}`,
      );
    }
    const split = (files: readonly CifarBinFile[]): SplitInfo => {
      const parts = files.map((f) => this.files.get(f)).filter((p): p is FileResult => p !== undefined);
      return {
        files: [...files],
        records: parts.reduce((a, p) => a + p.records, 0),
        chunks: parts.flatMap((p) => p.chunks),
      };
    };
    const testFiles = this.files.has(TEST_FILE) ? ([TEST_FILE] as const) : [];
    return {
      format: 1,
      name,
      recordBytes: RECORD_BYTES,
      classes: this.classes ?? [...CIFAR10_CLASSES],
      source: { ...source, ignored: [...this.ignored] },
      splits: { train: split(trainFiles), test: split(testFiles) },
    };
  }
}
