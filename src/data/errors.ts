// The data layer's errors, except the stores' (store-errors.ts). Each class names what was wrong
// and where (file, record, byte offset); `code` is a stable machine-readable tag for the UI and the
// CLI. An import that throws any of these leaves the previously stored dataset unchanged. In order:
// the base (DataError) and describe(); the CIFAR-10 format; the archive's gzip and tar layers;
// hostile or unusual input (a path that is not a regular file, a tar archive that asks the decoder
// to buffer too much metadata).
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
