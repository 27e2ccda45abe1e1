// Gunzip with DecompressionStream('gzip'), driven by the reader: compressed input is fed only while
// a read of decompressed output is waiting. (Node 20's DecompressionStream accepts writes without
// backpressure, so a plain pipeThrough reads a whole 170 MB archive ahead into memory.) When the
// data is corrupt, the input is cancelled, so a file under it is closed.

/** The decompressed bytes of `input`; cancelling the result cancels `input`. */
export function gunzipStream(input: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const ds = new DecompressionStream('gzip') as ReadableWritablePair<Uint8Array, Uint8Array>;
  const writer = ds.writable.getWriter();
  const output = ds.readable.getReader();
  const source = input.getReader();
  let reading: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  let feeding: Promise<'fed'> | undefined;
  let inputDone = false;

  /** Moves one piece of input into the decompressor (or closes it at the end). */
  const feed = async (): Promise<'fed'> => {
    let r: ReadableStreamReadResult<Uint8Array>;
    try {
      r = await source.read();
    } catch (e) {
      await writer.abort(e).catch(() => undefined);
      throw e;
    }
    if (r.done) {
      inputDone = true;
      await writer.close();
    } else {
      await writer.write(r.value);
    }
    return 'fed';
  };
  const quiet = <T>(p: Promise<T>): Promise<T> => {
    p.catch(() => undefined); // awaited by pull; never an unhandled rejection
    return p;
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(ctrl) {
        reading ??= quiet(output.read());
        try {
          for (;;) {
            if (!inputDone)
              feeding ??= quiet(
                feed().finally(() => {
                  feeding = undefined;
                }),
              );
            const next = feeding ? await Promise.race([reading, feeding]) : await reading;
            if (next === 'fed') continue;
            reading = undefined;
            if (next.done) return ctrl.close();
            return ctrl.enqueue(next.value);
          }
        } catch (e) {
          // Corrupt data: nothing reads the input any more, so release it (e.g. close the file).
          await source.cancel(e).catch(() => undefined);
          throw e;
        }
      },
      async cancel(reason) {
        await source.cancel(reason).catch(() => undefined);
        await output.cancel(reason).catch(() => undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
