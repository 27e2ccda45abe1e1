// CIFAR-10 importers that run in browsers, workers and Node: from a stream of
// cifar-10-binary.tar.gz, from a URL (fetch), and from loose .bin files. Each validates as it
// streams, stores chunks through a DatasetWriter and commits the manifest last; on any failure the
// chunks it stored are removed and the previously stored dataset is left as it was.
import { ARCHIVE_DIR, META_FILE, cifarFileOf } from './cifar.ts';
import { forEachArchiveEntry, skipEntry } from './archive.ts';
import { DatasetWriter } from './dataset-writer.ts';
import { ArchiveContentsError, HttpStatusError, ImportAbortedError, NetworkError, SourceReadError } from './errors.ts';
import { StorageQuotaError } from './store-errors.ts';
import { CifarIngest, type Completeness } from './ingest.ts';
import {
  DEFAULT_DATASET,
  DEFAULT_MAX_DECOMPRESSED,
  type ByteSource,
  type ImportOptions,
  type ImportPhase,
  type ImportResult,
} from './import-types.ts';
import { DEFAULT_RECORDS_PER_CHUNK } from './records.ts';
import type { DatasetSource, DatasetStore } from './store.ts';
import { mapStream } from './streams.ts';

/** Tracks bytes read and reports progress. */
class Progress {
  bytesRead = 0;
  file: string | undefined;
  ingest: CifarIngest | undefined;

  constructor(
    private readonly opts: ImportOptions,
    readonly totalBytes: number | undefined,
  ) {}

  report(phase: ImportPhase): void {
    this.opts.onProgress?.({
      phase,
      bytesRead: this.bytesRead,
      totalBytes: this.totalBytes,
      file: this.file,
      records: this.ingest?.records ?? 0,
    });
  }

  /** Wraps a source stream: counts and reports bytes, maps its failures, honours the signal. */
  guard(
    stream: ReadableStream<Uint8Array>,
    mapError: (e: unknown, bytesRead: number) => unknown,
  ): ReadableStream<Uint8Array> {
    return mapStream(stream, {
      signal: this.opts.signal,
      onChunk: (c) => {
        this.bytesRead += c.byteLength;
        this.report('reading');
      },
      mapError: (e) => mapError(e, this.bytesRead),
    });
  }
}

type Body = (ingest: CifarIngest, progress: Progress) => Promise<void>;

async function runImport(
  store: DatasetStore,
  opts: ImportOptions,
  source: Omit<DatasetSource, 'ignored'>,
  need: Completeness,
  body: Body,
  unused?: ReadableStream<Uint8Array>,
): Promise<ImportResult> {
  const progress = new Progress(opts, opts.totalBytes);
  const run = async (): Promise<ImportResult> => {
    let writer: DatasetWriter;
    let persisted: boolean | undefined;
    try {
      writer = new DatasetWriter(store, opts.name ?? DEFAULT_DATASET);
      persisted = store.persist ? await store.persist() : undefined;
      await writer.collectGarbage();
      if (opts.totalBytes !== undefined && store.checkSpace) await store.checkSpace(opts.totalBytes);
    } catch (e) {
      await unused?.cancel(e).catch(() => undefined); // e.g. release the HTTP connection
      throw e;
    }
    const ingest = new CifarIngest(
      writer,
      opts.sourceName ?? source.description,
      opts.recordsPerChunk ?? DEFAULT_RECORDS_PER_CHUNK,
      () => progress.report('reading'),
      opts.recordsPerFile,
    );
    progress.ingest = ingest;
    try {
      progress.report('reading');
      await body(ingest, progress);
      const draft = ingest.draft(writer.name, opts.source ?? source, need);
      if (opts.signal?.aborted) throw new ImportAbortedError(opts.signal.reason);
      progress.file = undefined;
      progress.report('committing');
      const commit = await writer.commit(draft);
      progress.report('done');
      const s = writer.stats;
      return {
        manifest: commit.manifest,
        unchanged: commit.unchanged,
        ignored: ingest.ignored,
        persisted,
        chunksWritten: s.written,
        chunksReused: s.reused,
        bytesWritten: s.bytesWritten,
        warnings: writer.warnings,
      };
    } catch (e) {
      await writer.abort();
      if (e instanceof StorageQuotaError && progress.totalBytes !== undefined) {
        // Say how much the rest of the import needs, not just the chunk that failed.
        const rest = Math.max(0, progress.totalBytes - progress.bytesRead) + e.neededBytes;
        throw new StorageQuotaError(rest, e.usage, e.quota, e.what, e.cause);
      }
      throw e;
    }
  };
  return store.withImportLock ? store.withImportLock(run) : run();
}

/** The CIFAR file an archive member denotes (only cifar-10-batches-bin/<name> counts). */
function memberFile(path: string): ReturnType<typeof cifarFileOf> {
  const prefix = `${ARCHIVE_DIR}/`;
  return path.startsWith(prefix) ? cifarFileOf(path.slice(prefix.length)) : undefined;
}

async function archiveBody(
  stream: ReadableStream<Uint8Array>,
  opts: ImportOptions,
  sourceName: string,
  progress: Progress,
  ingest: CifarIngest,
): Promise<void> {
  await forEachArchiveEntry(
    stream,
    {
      source: sourceName,
      maxDecompressedBytes: opts.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED,
      compressedBytes: () => progress.bytesRead,
    },
    async (entry) => {
      const file = memberFile(entry.name);
      if (file === undefined) {
        if (entry.type !== 'directory') ingest.ignore(entry.name);
        return skipEntry(entry);
      }
      if (entry.type !== 'file') {
        await skipEntry(entry);
        throw new ArchiveContentsError(sourceName, [file], `${entry.name} is a ${entry.type}, not a regular file`);
      }
      progress.file = entry.name;
      if (file === META_FILE) return ingest.addMeta(entry.name, entry.body);
      return ingest.addBin(file, entry.name, entry.body, entry.size);
    },
  );
}

/**
 * Imports cifar-10-binary.tar.gz from a byte stream (a plain .tar is accepted too). Requires
 * cifar-10-batches-bin/{data_batch_1..5.bin, test_batch.bin, batches.meta.txt}, each once; other
 * entries are ignored and listed in the result.
 */
export async function importArchive(
  stream: ReadableStream<Uint8Array>,
  store: DatasetStore,
  opts: ImportOptions = {},
): Promise<ImportResult> {
  const sourceName = opts.sourceName ?? 'cifar-10-binary.tar.gz';
  return runImport(
    store,
    opts,
    { kind: 'archive', description: sourceName },
    'archive',
    (ingest, progress) => {
      const guarded = progress.guard(stream, (e, n) => new SourceReadError(sourceName, n, e));
      return archiveBody(guarded, opts, sourceName, progress, ingest);
    },
    stream,
  );
}

/**
 * Downloads and imports cifar-10-binary.tar.gz with fetch. HTTP error statuses throw
 * HttpStatusError; refused, reset or dropped connections (also mid-download) throw NetworkError.
 */
export async function importFromUrl(url: string, store: DatasetStore, opts: ImportOptions = {}): Promise<ImportResult> {
  let res: Response;
  try {
    res = await fetch(url, { signal: opts.signal ?? null });
  } catch (e) {
    if (opts.signal?.aborted) throw new ImportAbortedError(opts.signal.reason);
    throw new NetworkError(url, 0, e);
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new HttpStatusError(url, res.status, res.statusText);
  }
  const body = res.body;
  if (!body) throw new NetworkError(url, 0, new Error('the response has no body'));
  const length = Number(res.headers.get('content-length') ?? NaN);
  const sourceName = opts.sourceName ?? url;
  const withTotal: ImportOptions = {
    ...opts,
    sourceName,
    totalBytes: opts.totalBytes ?? (Number.isFinite(length) ? length : undefined),
  };
  return runImport(
    store,
    withTotal,
    { kind: 'url', description: url },
    'archive',
    (ingest, progress) => {
      const guarded = progress.guard(body, (e, n) => new NetworkError(url, n, e));
      return archiveBody(guarded, withTotal, sourceName, progress, ingest);
    },
    body,
  );
}

/**
 * Imports loose CIFAR-10 files (e.g. Files the user picked). Accepts a subset: at least one
 * data_batch_N.bin; test_batch.bin and batches.meta.txt are optional (class names default to
 * CIFAR-10's); training files are ordered data_batch_1..5 whatever the order given. Files with other
 * names are ignored and listed in the result; a name given twice is an error.
 */
export async function importFiles(
  files: readonly ByteSource[],
  store: DatasetStore,
  opts: ImportOptions = {},
): Promise<ImportResult> {
  const names = files.map((f) => f.name).join(', ');
  const description = opts.sourceName ?? `files: ${names}`;
  const sizes = files.map((f) => f.size);
  const total = sizes.every((s) => s !== undefined) ? sizes.reduce<number>((a, s) => a + (s ?? 0), 0) : undefined;
  const withTotal: ImportOptions = { ...opts, totalBytes: opts.totalBytes ?? total };
  return runImport(store, withTotal, { kind: 'files', description }, 'subset', async (ingest, progress) => {
    for (const f of files) {
      const base = f.name.split(/[\\/]/).pop() ?? f.name;
      const file = cifarFileOf(base);
      if (file === undefined) {
        ingest.ignore(f.name);
        continue;
      }
      progress.file = f.name;
      const start = progress.bytesRead;
      const stream = progress.guard(f.stream(), (e, n) => new SourceReadError(f.name, n - start, e));
      if (file === META_FILE) await ingest.addMeta(f.name, stream);
      else await ingest.addBin(file, f.name, stream, f.size);
    }
  });
}
