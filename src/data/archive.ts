// Reading a .tar.gz (or a plain .tar) as a stream of entries: sniff the first bytes, gunzip
// (gunzip.ts: DecompressionStream('gzip')) under a size cap, decode the tar with modern-tar's
// streaming decoder (strict: header checksums checked), and turn every failure into a typed error.
import { createTarDecoder, type ParsedTarEntry } from 'modern-tar';
import {
  CorruptGzipError,
  CorruptTarError,
  DataError,
  DecompressedTooLargeError,
  EmptyFileError,
  type GzipError,
  NotGzipError,
  NotTarError,
  TruncatedGzipError,
} from './errors.ts';
import { gunzipStream } from './gunzip.ts';
import { forEachChunk, mapStream, peek } from './streams.ts';
import { TarOverheadGuard } from './tar-guard.ts';

/** An archive member as the importer sees it; `body` must be read to the end or cancelled. */
export interface ArchiveEntry {
  /** Path inside the archive, without a leading './'. */
  readonly name: string;
  readonly type: string;
  readonly size: number;
  readonly body: ReadableStream<Uint8Array>;
}

/** Options of forEachArchiveEntry. */
export interface ArchiveReadOptions {
  /** Name for messages (e.g. cifar-10-binary.tar.gz). */
  readonly source: string;
  /** Cap on decompressed bytes (decompression bombs). */
  readonly maxDecompressedBytes: number;
  /** Compressed bytes consumed so far (for messages). */
  readonly compressedBytes: () => number;
  /** Cap on tar metadata and padding bytes (tar-guard.ts; default 4 MiB). */
  readonly maxTarOverhead?: number;
}

/** Classifies a DecompressionStream failure (Node: zlib codes; Chromium: its messages). */
function classifyGzipError(e: unknown, source: string, compressedBytes: number): GzipError {
  const msg = e instanceof Error ? e.message : String(e);
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'Z_BUF_ERROR' || /unexpected end of file|truncated/i.test(msg))
    return new TruncatedGzipError(source, compressedBytes, e);
  return new CorruptGzipError(source, compressedBytes, msg.replace(/^The compressed data was not valid: /, ''), e);
}

function hex(bytes: Uint8Array): string {
  return [...bytes.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ') || '(nothing)';
}

/** True when a 512-byte block carries the ustar magic (a tar header). */
function looksLikeTar(head: Uint8Array): boolean {
  return head.byteLength >= 512 && new TextDecoder().decode(head.subarray(257, 262)) === 'ustar';
}

/** Gunzips `stream` unless it is already a tar; maps every gzip failure to a GzipError. */
async function tarBytes(
  stream: ReadableStream<Uint8Array>,
  opts: ArchiveReadOptions,
): Promise<ReadableStream<Uint8Array>> {
  const { head, stream: whole } = await peek(stream, 512);
  if (head.byteLength === 0 || !(head[0] === 0x1f && head[1] === 0x8b)) {
    if (looksLikeTar(head)) return whole; // already decompressed (e.g. fetched with Content-Encoding: gzip)
    await whole.cancel().catch(() => undefined);
    throw head.byteLength === 0 ? new EmptyFileError(opts.source) : new NotGzipError(opts.source, hex(head));
  }
  let out = 0;
  const decompressed = gunzipStream(whole);
  return mapStream(decompressed, {
    onChunk: (c) => {
      out += c.byteLength;
      if (out > opts.maxDecompressedBytes) throw new DecompressedTooLargeError(opts.source, opts.maxDecompressedBytes);
    },
    mapError: (e) => classifyGzipError(e, opts.source, opts.compressedBytes()),
  });
}

/**
 * Streams the archive's entries to `onEntry` one at a time (each body read or cancelled before the
 * next). Errors: NotGzipError, TruncatedGzipError, CorruptGzipError, DecompressedTooLargeError,
 * NotTarError, CorruptTarError, or whatever `onEntry` throws.
 */
export async function forEachArchiveEntry(
  stream: ReadableStream<Uint8Array>,
  opts: ArchiveReadOptions,
  onEntry: (entry: ArchiveEntry) => Promise<void>,
): Promise<void> {
  let seen = 0;
  let last = '';
  const tarError = (e: unknown): unknown => {
    if (e instanceof DataError) return e;
    const msg = e instanceof Error ? e.message : String(e);
    if (seen === 0) return new NotTarError(opts.source, msg, e);
    return new CorruptTarError(opts.source, `in or after entry '${last}' (entry ${seen}): ${msg}`, e);
  };
  const guard = new TarOverheadGuard(opts.source, opts.maxTarOverhead);
  const tar = mapStream(await tarBytes(stream, opts), { onChunk: (c) => guard.feed(c.byteLength) });
  const entries = tar.pipeThrough(createTarDecoder({ strict: true }));
  const reader = entries.getReader();
  try {
    for (;;) {
      let r: ReadableStreamReadResult<ParsedTarEntry>;
      try {
        r = await reader.read();
      } catch (e) {
        throw tarError(e);
      }
      if (r.done) break;
      const { header, body } = r.value;
      seen++;
      last = header.name.replace(/^(\.\/)+/, '');
      guard.entry(last);
      await onEntry({
        name: last,
        type: header.type ?? 'file',
        size: header.size,
        body: mapStream(body, { mapError: tarError, onChunk: (c) => guard.bodyBytes(c.byteLength) }),
      });
    }
  } catch (e) {
    await reader.cancel(e).catch(() => undefined);
    throw e;
  }
}

/**
 * Skips an entry that is not imported by reading its body to the end. Not cancel(): with
 * modern-tar 0.8.6, cancelling a small entry's body that the decoder has already buffered (a
 * 21-byte readme.html, source in 1000-byte pieces) makes the next entry's body stall for good.
 */
export async function skipEntry(entry: ArchiveEntry): Promise<void> {
  await forEachChunk(entry.body, () => undefined);
}
