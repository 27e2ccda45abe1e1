// Node-only CIFAR-10 import from the filesystem: a cifar-10-binary.tar.gz (or .tar) file, or a
// directory holding the extracted .bin files (cifar-10-batches-bin itself, or its parent). Files
// become web ReadableStreams (Readable.toWeb) and go through the same importers as in a browser.
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import { ARCHIVE_DIR } from './cifar.ts';
import { SourceReadError } from './errors.ts';
import { importArchive, importFiles } from './import.ts';
import type { ByteSource, ImportOptions, ImportResult } from './import-types.ts';
import type { DatasetStore } from './store.ts';

/** A file as a web byte stream. */
export function fileStream(path: string): ReadableStream<Uint8Array> {
  return Readable.toWeb(createReadStream(path, { highWaterMark: 1 << 20 })) as ReadableStream<Uint8Array>;
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
export async function importFromPath(path: string, store: DatasetStore, opts: ImportOptions = {}): Promise<ImportResult> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    throw new SourceReadError(path, 0, e);
  }
  if (st.isDirectory()) {
    let dir = path;
    const inner = join(path, ARCHIVE_DIR);
    if (await stat(inner).then((s) => s.isDirectory(), () => false)) dir = inner;
    const names = (await readdir(dir, { withFileTypes: true })).filter((d) => d.isFile()).map((d) => d.name).sort();
    const sources = await Promise.all(names.map((n) => fileSource(join(dir, n))));
    return importFiles(sources, store, { sourceName: dir, ...opts });
  }
  return importArchive(fileStream(path), store, { sourceName: basename(path), totalBytes: st.size, ...opts });
}
