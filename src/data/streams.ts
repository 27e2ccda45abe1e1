// Small web-stream helpers for the import pipeline: a pass-through that counts bytes, checks an
// AbortSignal and maps the inner stream's errors to typed ones; reading a stream chunk by chunk;
// reading a small stream whole; peeking at a stream's first bytes without losing them.
import { DataError, ImportAbortedError } from './errors.ts';

/** Options of mapStream. */
export interface MapStreamOptions {
  /** Called with each chunk before it is passed on; may throw to fail the stream. */
  onChunk?: (chunk: Uint8Array) => void;
  /** Turns an error of the inner stream into the error the outer stream fails with. */
  mapError?: (error: unknown) => unknown;
  signal?: AbortSignal;
}

/**
 * A pull-through copy of `inner`: counts nothing itself, but runs `onChunk` on every chunk, fails
 * with `mapError(e)` when `inner` fails, and with ImportAbortedError when `signal` aborts.
 * Cancelling the result cancels `inner`.
 */
export function mapStream(inner: ReadableStream<Uint8Array>, opts: MapStreamOptions): ReadableStream<Uint8Array> {
  const reader = inner.getReader();
  const fail = (ctrl: ReadableStreamDefaultController<Uint8Array>, e: unknown) => {
    ctrl.error(e);
    reader.cancel(e).catch(() => undefined);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(ctrl) {
        if (opts.signal?.aborted) return fail(ctrl, new ImportAbortedError(opts.signal.reason));
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await reader.read();
        } catch (e) {
          ctrl.error(opts.mapError && !(e instanceof DataError) ? opts.mapError(e) : e);
          reader.cancel(e).catch(() => undefined); // already errored: only releases what it holds
          return;
        }
        if (r.done) return ctrl.close();
        try {
          opts.onChunk?.(r.value);
        } catch (e) {
          return fail(ctrl, e);
        }
        ctrl.enqueue(r.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Reads `stream` to the end, awaiting `fn` on each chunk; on any error the stream is cancelled. */
export async function forEachChunk(
  stream: ReadableStream<Uint8Array>,
  fn: (chunk: Uint8Array) => Promise<void> | void,
): Promise<void> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) return;
      await fn(r.value);
    }
  } catch (e) {
    await reader.cancel(e).catch(() => undefined);
    throw e;
  } finally {
    reader.releaseLock();
  }
}

/** Reads a whole stream into one buffer; throws `tooLarge()` past `maxBytes`. */
export async function readAll(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let n = 0;
  await forEachChunk(stream, (c) => {
    n += c.byteLength;
    if (n > maxBytes) throw tooLarge();
    parts.push(c);
  });
  return concat(parts, n);
}

/** Concatenates byte arrays. */
function concat(parts: readonly Uint8Array[], total = parts.reduce((a, p) => a + p.byteLength, 0)): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * Reads up to `n` bytes from the front of `stream` (fewer only when it ends) and returns them with
 * a stream that yields the whole original content, those bytes included.
 */
export async function peek(
  stream: ReadableStream<Uint8Array>,
  n: number,
): Promise<{ head: Uint8Array; stream: ReadableStream<Uint8Array> }> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let have = 0;
  let ended = false;
  while (have < n) {
    let r: ReadableStreamReadResult<Uint8Array>;
    try {
      r = await reader.read();
    } catch (e) {
      await reader.cancel(e).catch(() => undefined);
      throw e;
    }
    if (r.done) {
      ended = true;
      break;
    }
    parts.push(r.value);
    have += r.value.byteLength;
  }
  const buffered = concat(parts, have);
  let first = true;
  const rest = new ReadableStream<Uint8Array>(
    {
      async pull(ctrl) {
        if (first) {
          first = false;
          if (buffered.byteLength > 0) return ctrl.enqueue(buffered);
        }
        if (ended) return ctrl.close();
        const r = await reader.read();
        if (r.done) ctrl.close();
        else ctrl.enqueue(r.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return { head: buffered.subarray(0, Math.min(n, have)), stream: rest };
}
