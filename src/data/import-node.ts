// Node-only CIFAR-10 import from the filesystem: a cifar-10-binary.tar.gz (or .tar) file, or a
// directory holding the extracted .bin files (cifar-10-batches-bin itself, or its parent). Files
// become web ReadableStreams (Readable.toWeb) and go through the same importers as in a browser.
import { open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ARCHIVE_DIR } from './cifar.ts';
import { SourceReadError } from './errors.ts';
import { importArchive, importFiles } from './import.ts';
import type { ByteSource, ImportOptions, ImportResult } from './import-types.ts';
import type { DatasetStore } from './store.ts';

/**
 * A file as a web byte stream, read 1 MiB per pull (so backpressure holds: Node 20's
 * Readable.toWeb counts its high-water mark in chunks and reads far ahead).
 */
export function fileStream(path: string, pieceBytes = 1 << 20): ReadableStream<Uint8Array> {
  let fh: FileHandle | undefined;
  const close = async () => {
    const h = fh;
    fh = undefined;
    await h?.close();
  };
  return new ReadableStream<Uint8Array>(
    {
      async start() {
        fh = await open(path, 'r');
      },
      async pull(ctrl) {
        if (!fh) return ctrl.close();
        const buf = new Uint8Array(pieceBytes);
        const { bytesRead } = await fh.read(buf, 0, pieceBytes, null);
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

/** A file as a ByteSource (name = its base name). */
export async function fileSource(path: string): Promise<ByteSource> {
  const st = await stat(path);
  return { name: basename(path), size: st.size, stream: () => fileStream(path) };
}

/**
 * Imports from `path`: a .tar.gz/.tar archive, or a directory of .bin files (the rules of
 * importFiles: at least one data_batch file; other files ignored).
 */
export async function importFromPath(
  path: string,
  store: DatasetStore,
  opts: ImportOptions = {},
): Promise<ImportResult> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    throw new SourceReadError(path, 0, e);
  }
  if (st.isDirectory()) {
    let dir = path;
    const inner = join(path, ARCHIVE_DIR);
    if (
      await stat(inner).then(
        (s) => s.isDirectory(),
        () => false,
      )
    )
      dir = inner;
    const names = (await readdir(dir, { withFileTypes: true }))
      .filter((d) => d.isFile())
      .map((d) => d.name)
      .sort();
    const sources = await Promise.all(names.map((n) => fileSource(join(dir, n))));
    return importFiles(sources, store, { sourceName: dir, ...opts });
  }
  return importArchive(fileStream(path), store, { sourceName: basename(path), totalBytes: st.size, ...opts });
}
