// Node-only CIFAR-10 import from the filesystem: a cifar-10-binary.tar.gz (or .tar) file, or a
// directory holding the extracted .bin files (cifar-10-batches-bin itself, or its parent). Files
// become web ReadableStreams (file-node.ts) and go through the same importers as in a browser.
// Anything else (a FIFO, a socket, a device) is refused at once by name, and every file the
// import opened is closed when it ends, whether it succeeded or failed.
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ARCHIVE_DIR, cifarFileOf } from './cifar.ts';
import { NotRegularFileError } from './errors.ts';
import { SourceReadError } from './errors.ts';
import { fileStream, kindOf, OpenFiles } from './file-node.ts';
import { importArchive, importFiles } from './import.ts';
import type { ByteSource, ImportOptions, ImportResult } from './import-types.ts';
import type { DatasetStore } from './store.ts';

const EXPECTED = 'cifar-10-binary.tar.gz (or .tar) or a directory of CIFAR-10 .bin files';

async function statOf(path: string) {
  try {
    return await stat(path);
  } catch (e) {
    throw new SourceReadError(path, 0, e);
  }
}

/** The files of a source directory as ByteSources; a CIFAR name that is not a regular file is refused. */
async function directorySources(dir: string, files: OpenFiles): Promise<ByteSource[]> {
  const inner = join(dir, ARCHIVE_DIR);
  if ((await stat(inner).catch(() => undefined))?.isDirectory()) dir = inner;
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch (e) {
    throw new SourceReadError(dir, 0, e);
  }
  const sources: ByteSource[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const isCifar = cifarFileOf(name) !== undefined;
    const st = isCifar ? await statOf(path) : await stat(path).catch(() => undefined);
    if (!st) continue; // e.g. a dangling link that is not a CIFAR file
    const kind = kindOf(st);
    if (kind === undefined) sources.push({ name, size: st.size, stream: () => fileStream(path, files) });
    else if (isCifar) throw new NotRegularFileError(path, kind);
  }
  return sources;
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
  const st = await statOf(path);
  const kind = kindOf(st);
  const files = new OpenFiles();
  try {
    if (kind === 'directory') {
      const dir = (await stat(join(path, ARCHIVE_DIR)).catch(() => undefined))?.isDirectory()
        ? join(path, ARCHIVE_DIR)
        : path;
      return await importFiles(await directorySources(path, files), store, { sourceName: dir, ...opts });
    }
    if (kind !== undefined) throw new NotRegularFileError(path, kind, EXPECTED);
    return await importArchive(fileStream(path, files), store, {
      sourceName: basename(path),
      totalBytes: st.size,
      ...opts,
    });
  } finally {
    await files.closeAll();
  }
}
