// Every error the data layer raises. Each class names what was wrong and where (file, record,
// byte offset, chunk); `code` is a stable machine-readable tag for the UI and the CLI. An import
// that throws any of these leaves the previously stored dataset unchanged. In order: the base
// (DataError) and describe(); the CIFAR-10 format; the archive's gzip and tar layers; hostile or
// unusual input (a path that is not a regular file, a tar archive that asks the decoder to buffer
// too much metadata); the stores (IndexedDB, directory): a corrupt or missing chunk or manifest, an
// unknown dataset, the quota, any other storage failure.
import type { FileKind } from '../input/path-node.ts';

/** Base class of all data-layer errors. */
export class DataError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DataError';
  }
}

/** A short text for any thrown value. */
export function describe(e: unknown): string {
  if (e instanceof Error) {
    const inner = e.cause instanceof Error ? ` (${e.cause.message})` : '';
    return `${e.message}${inner}`;
  }
  return String(e);
}

/** A CIFAR-10 .bin file whose contents are wrong (length, label, emptiness). */
export class CifarFormatError extends DataError {
  constructor(
    code: string,
    readonly file: string,
    message: string,
  ) {
    super(code, message);
    this.name = 'CifarFormatError';
  }
}

/** A .bin file with no bytes at all. */
export class EmptyFileError extends CifarFormatError {
  constructor(file: string) {
    super('EMPTY_FILE', file, `${file}: the file is empty (a CIFAR-10 batch holds records of 3073 bytes)`);
    this.name = 'EmptyFileError';
  }
}

/** A .bin file whose length is not a whole number of 3073-byte records. */
export class RecordLengthError extends CifarFormatError {
  constructor(
    file: string,
    readonly bytes: number,
  ) {
    const whole = Math.floor(bytes / 3073);
    super(
      'BAD_CIFAR_LENGTH',
      file,
      `${file}: ${bytes} bytes is not a whole number of 3073-byte records (${whole} records and ${bytes - whole * 3073} bytes left over at byte offset ${whole * 3073})`,
    );
    this.name = 'RecordLengthError';
  }
}

/** A record whose label byte is not 0..9. */
export class LabelError extends CifarFormatError {
  constructor(
    file: string,
    readonly record: number,
    readonly offset: number,
    readonly value: number,
  ) {
    super(
      'BAD_LABEL',
      file,
      `${file}: record ${record} (byte offset ${offset}) has label ${value}; CIFAR-10 labels are 0..9`,
    );
    this.name = 'LabelError';
  }
}

/** A .bin file with another number of records than required (ImportOptions.recordsPerFile). */
export class RecordCountError extends CifarFormatError {
  constructor(
    file: string,
    readonly records: number,
    readonly expected: number,
  ) {
    super('BAD_RECORD_COUNT', file, `${file}: holds ${records} records, expected exactly ${expected}`);
    this.name = 'RecordCountError';
  }
}

/** batches.meta.txt that does not list exactly 10 class names. */
export class MetaError extends CifarFormatError {
  constructor(file: string, detail: string) {
    super('BAD_META', file, `${file}: ${detail}`);
    this.name = 'MetaError';
  }
}

/** The archive's gzip layer is broken. */
export class GzipError extends DataError {
  constructor(
    code: string,
    readonly source: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.name = 'GzipError';
  }
}

/** The bytes do not start with the gzip magic 1f 8b. */
export class NotGzipError extends GzipError {
  constructor(source: string, head: string) {
    super(
      'NOT_GZIP',
      source,
      `${source}: not a gzip file (starts with ${head}, expected 1f 8b); expected cifar-10-binary.tar.gz`,
    );
    this.name = 'NotGzipError';
  }
}

/** The gzip stream ends before its end marker (a partial download). */
export class TruncatedGzipError extends GzipError {
  constructor(
    source: string,
    readonly compressedBytes: number,
    cause?: unknown,
  ) {
    super(
      'TRUNCATED_GZIP',
      source,
      `${source}: the gzip data is truncated (it ends after ${compressedBytes} compressed bytes); download it again`,
      { cause },
    );
    this.name = 'TruncatedGzipError';
  }
}

/** The gzip stream is damaged (bad block, CRC mismatch, trailing junk). */
export class CorruptGzipError extends GzipError {
  constructor(
    source: string,
    readonly compressedBytes: number,
    detail: string,
    cause?: unknown,
  ) {
    super(
      'CORRUPT_GZIP',
      source,
      `${source}: the gzip data is corrupt near compressed byte ${compressedBytes}: ${detail}`,
      { cause },
    );
    this.name = 'CorruptGzipError';
  }
}

/** Decompression produced more bytes than the cap (a decompression bomb, or the wrong file). */
export class DecompressedTooLargeError extends GzipError {
  constructor(
    source: string,
    readonly limit: number,
  ) {
    super(
      'DECOMPRESSED_TOO_LARGE',
      source,
      `${source}: decompresses to more than ${limit} bytes, far more than CIFAR-10's tar; refusing to continue`,
    );
    this.name = 'DecompressedTooLargeError';
  }
}

/** The decompressed bytes are not a tar archive, or the tar structure is damaged. */
export class TarError extends DataError {
  constructor(
    code: string,
    readonly source: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.name = 'TarError';
  }
}

/** The first tar header is invalid: this is not a tar archive at all. */
export class NotTarError extends TarError {
  constructor(source: string, detail: string, cause?: unknown) {
    super('NOT_TAR', source, `${source}: the decompressed data is not a tar archive (${detail})`, { cause });
    this.name = 'NotTarError';
  }
}

/** A damaged or truncated tar archive (after at least one good entry). */
export class CorruptTarError extends TarError {
  constructor(source: string, detail: string, cause?: unknown) {
    super('CORRUPT_TAR', source, `${source}: the tar archive is damaged: ${detail}`, { cause });
    this.name = 'CorruptTarError';
  }
}

/** The archive or file list lacks expected CIFAR-10 files, or holds one twice or in the wrong form. */
export class ArchiveContentsError extends DataError {
  constructor(
    readonly source: string,
    readonly missing: readonly string[],
    detail: string,
  ) {
    super('ARCHIVE_CONTENTS', `${source}: ${detail}`);
    this.name = 'ArchiveContentsError';
  }
}

/** Reading the source stream itself failed (disk error, a stream that errored, a dropped download). */
export class SourceReadError extends DataError {
  constructor(
    readonly source: string,
    readonly bytesRead: number,
    cause: unknown,
  ) {
    super('SOURCE_READ', `${source}: reading failed after ${bytesRead} bytes: ${describe(cause)}`, { cause });
    this.name = 'SourceReadError';
  }
}

/** importFromUrl: the server answered with an HTTP error status. */
export class HttpStatusError extends DataError {
  constructor(
    readonly url: string,
    readonly status: number,
    statusText: string,
  ) {
    super('HTTP_STATUS', `GET ${url} failed: HTTP ${status}${statusText ? ` ${statusText}` : ''}`);
    this.name = 'HttpStatusError';
  }
}

/** importFromUrl: the request or the download failed at the network level. */
export class NetworkError extends DataError {
  constructor(
    readonly url: string,
    readonly bytesRead: number,
    cause: unknown,
  ) {
    super(
      'NETWORK',
      `GET ${url} failed${bytesRead > 0 ? ` after ${bytesRead} bytes` : ''}: network error: ${describe(cause)}`,
      { cause },
    );
    this.name = 'NetworkError';
  }
}

/** The import was cancelled through its AbortSignal; nothing was committed. */
export class ImportAbortedError extends DataError {
  constructor(reason: unknown) {
    super(
      'ABORTED',
      `import cancelled${reason === undefined ? '' : `: ${describe(reason)}`}; the stored dataset is unchanged`,
      { cause: reason },
    );
    this.name = 'ImportAbortedError';
  }
}

/** What a non-regular filesystem object is, in words. */
export type { FileKind };

/** The import source (or a CIFAR file in a source directory) is not what it must be (no FIFO, device...). */
export class NotRegularFileError extends DataError {
  constructor(
    readonly path: string,
    readonly kind: FileKind,
    expected = 'a regular file',
  ) {
    super('NOT_REGULAR_FILE', `${path} is a ${kind}, not ${expected}; refusing to read it`);
    this.name = 'NotRegularFileError';
  }
}

/** More tar metadata or padding than any real archive has, before the next entry. */
export class TarMetadataTooLargeError extends TarError {
  constructor(
    source: string,
    readonly limit: number,
    where: string,
  ) {
    super(
      'TAR_METADATA_TOO_LARGE',
      source,
      `${source}: the tar archive is damaged or hostile: more than ${limit} bytes of tar headers (pax or GNU long-name records) or padding ${where}; refusing to buffer them`,
    );
    this.name = 'TarMetadataTooLargeError';
  }
}

/** A stored chunk whose bytes no longer match the manifest's SHA-256 (or that is missing). */
export class ChecksumMismatchError extends DataError {
  constructor(
    readonly dataset: string,
    readonly split: string,
    readonly chunk: number,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      'CHECKSUM_MISMATCH',
      actual === 'missing'
        ? `dataset '${dataset}': ${split} chunk ${chunk} (sha256 ${expected.slice(0, 16)}...) is missing from storage; import the dataset again`
        : `dataset '${dataset}': ${split} chunk ${chunk} is corrupt: sha256 ${actual.slice(0, 16)}... but the manifest says ${expected.slice(0, 16)}...; import the dataset again`,
    );
    this.name = 'ChecksumMismatchError';
  }
}

/** A stored manifest that is malformed or does not match its own version id. */
export class ManifestError extends DataError {
  constructor(
    readonly dataset: string,
    detail: string,
  ) {
    super('BAD_MANIFEST', `dataset '${dataset}': stored manifest is invalid: ${detail}`);
    this.name = 'ManifestError';
  }
}

/** No dataset of that name is stored. */
export class DatasetNotFoundError extends DataError {
  constructor(
    readonly dataset: string,
    readonly where: string,
  ) {
    super(
      'NOT_FOUND',
      `no dataset '${dataset}' in ${where}; import CIFAR-10 or create the built-in synthetic dataset first`,
    );
    this.name = 'DatasetNotFoundError';
  }
}

/** The storage quota ran out while writing; says how much was needed and what the browser reports. */
export class StorageQuotaError extends DataError {
  constructor(
    readonly neededBytes: number,
    readonly usage: number | undefined,
    readonly quota: number | undefined,
    readonly what: string,
    cause?: unknown,
  ) {
    // A refused write (with its cause) while estimate() reports room: Chromium's reported quota is
    // usage plus a fixed amount, not the limit it enforces, so do not call that free.
    const est =
      usage === undefined || quota === undefined
        ? ''
        : cause !== undefined && quota - usage >= neededBytes
          ? `; the browser refused the write: its real limit for this site, set by the disk's size and free space, is lower than the ${mb(quota)} quota navigator.storage.estimate() reports (${mb(usage)} used)`
          : `; navigator.storage.estimate() reports ${mb(usage)} used of a ${mb(quota)} quota (${mb(Math.max(0, quota - usage))} free)`;
    super(
      'QUOTA_EXCEEDED',
      `storage quota exceeded ${what}: about ${mb(neededBytes)} more is needed${est}. Free disk space or delete other site data, then import again`,
      { cause },
    );
    this.name = 'StorageQuotaError';
  }
}

/** Any other storage failure (IndexedDB aborted, filesystem error). */
export class StoreError extends DataError {
  constructor(
    readonly where: string,
    what: string,
    cause: unknown,
  ) {
    super('STORE', `${where}: ${what} failed: ${describe(cause)}`, { cause });
    this.name = 'StoreError';
  }
}

function mb(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}
