// Node only: files as web byte streams for the importers, without blocking and without leaking.
// A FIFO with no writer would block open() forever, so files are opened with O_NONBLOCK and
// anything but a regular file is refused by name (NotRegularFileError). Every handle an import
// opens is registered in an OpenFiles set that the import closes in `finally`, whatever state
// its streams were left in (errored, cancelled, never read).
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { kindOf } from '../input/path-node.ts';
import { NotRegularFileError } from './errors.ts';

export { kindOf };

/** Opens `path` for reading if it is a regular file; never blocks on a FIFO. */
async function openRegular(path: string): Promise<FileHandle> {
  const fh = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const kind = kindOf(await fh.stat());
    if (kind !== undefined) throw new NotRegularFileError(path, kind);
    return fh;
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** The closers of the files an import opened; closeAll() in `finally`. */
export class OpenFiles {
  private readonly closers = new Set<() => Promise<void>>();

  add(close: () => Promise<void>): void {
    this.closers.add(close);
  }

  async closeAll(): Promise<void> {
    const all = [...this.closers];
    this.closers.clear();
    await Promise.all(all.map((c) => c()));
  }
}

/**
 * A file as a web byte stream, read `pieceBytes` per pull (so backpressure holds: Node 20's
 * Readable.toWeb counts its high-water mark in chunks and reads far ahead). The handle is closed
 * at the end, on a read error, on cancel, and by `files.closeAll()`.
 */
export function fileStream(path: string, files: OpenFiles, pieceBytes = 1 << 20): ReadableStream<Uint8Array> {
  let opening: Promise<FileHandle> | undefined;
  let closing: Promise<void> | undefined;
  // One close for every caller (end, error, cancel, closeAll), and each waits until it is done.
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      const h = await opening?.catch(() => undefined);
      await h?.close().catch(() => undefined); // waits for a read in flight
    })());
  files.add(close);
  return new ReadableStream<Uint8Array>(
    {
      async start() {
        opening = openRegular(path);
        await opening;
      },
      async pull(ctrl) {
        const fh = closing ? undefined : await opening;
        if (!fh) return ctrl.close();
        const buf = new Uint8Array(pieceBytes);
        let bytesRead: number;
        try {
          ({ bytesRead } = await fh.read(buf, 0, pieceBytes, null));
        } catch (e) {
          await close();
          throw e;
        }
        if (bytesRead === 0) {
          await close();
          return ctrl.close();
        }
        ctrl.enqueue(bytesRead === pieceBytes ? buf : buf.slice(0, bytesRead));
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  );
}

/** A file larger than a reader takes: refused from its size, before a byte is read. */
export class FileTooLargeError extends Error {
  constructor(
    readonly path: string,
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(`${path} is ${bytes} bytes, more than the ${maxBytes} this file may have`);
    this.name = 'FileTooLargeError';
  }
}

/**
 * A whole regular file (a FIFO, socket or device is refused at once instead of blocking). With
 * `maxBytes`, a larger file is refused from its size before anything is read (a sparse 1.9 GB
 * file costs nothing).
 */
export async function readRegularFile(path: string, maxBytes = Infinity): Promise<Uint8Array> {
  const fh = await openRegular(path);
  try {
    const { size } = await fh.stat();
    if (size > maxBytes) throw new FileTooLargeError(path, size, maxBytes);
    return new Uint8Array(await fh.readFile());
  } finally {
    await fh.close();
  }
}
