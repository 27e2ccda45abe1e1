// Loose .bin files (the subset rule) and the Node filesystem importer (a .tar.gz file, an extracted
// directory), on a real filesystem.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CIFAR10_CLASSES, formatMeta } from '../../src/data/cifar.ts';
import { openDataset } from '../../src/data/dataset.ts';
import {
  ArchiveContentsError,
  EmptyFileError,
  MetaError,
  RecordCountError,
  RecordLengthError,
  SourceReadError,
} from '../../src/data/errors.ts';
import { importFiles } from '../../src/data/import.ts';
import { importFromPath } from '../../src/data/import-node.ts';
import { FileDatasetStore } from '../../src/data/store-file-node.ts';
import { bytesSource } from '../../src/data/synthetic.ts';
import { concatFiles, makeArchive, makeFiles, readSplit } from '../helpers/cifar-fixture.ts';

let dir: string;
let store: FileDatasetStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'webddp-files-'));
  store = await FileDatasetStore.open(join(dir, 'store'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const files = makeFiles(12, 7, 3);
const src = (name: string, bytes = files.get(name) ?? new Uint8Array()) => bytesSource(name, bytes);

describe('importFiles', { timeout: 60_000 }, () => {
  it('accepts a subset: training files ordered by batch number, test optional, default class names, others ignored', async () => {
    const r = await importFiles(
      [src('data_batch_3.bin'), src('notes.txt', new Uint8Array(3)), src('data_batch_1.bin')],
      store,
    );
    expect(r.manifest.splits.train.files).toEqual(['data_batch_1.bin', 'data_batch_3.bin']);
    expect(r.manifest.splits.test.records).toBe(0);
    expect(r.manifest.classes).toEqual(CIFAR10_CLASSES);
    expect(r.ignored).toEqual(['notes.txt']);
    const ds = await openDataset(store, 'cifar10');
    expect(
      Buffer.from(await readSplit(ds, 'train')).equals(concatFiles(files, ['data_batch_1.bin', 'data_batch_3.bin'])),
    ).toBe(true);
  });

  it('with recordsPerFile set, requires exactly that many records per file', async () => {
    await expect(importFiles([src('data_batch_1.bin')], store, { recordsPerFile: 10000 })).rejects.toThrow(
      'data_batch_1.bin: holds 12 records, expected exactly 10000',
    );
    const sizeUnknown = { name: 'data_batch_1.bin', stream: () => src('data_batch_1.bin').stream() };
    await expect(importFiles([sizeUnknown], store, { recordsPerFile: 10 })).rejects.toThrow(RecordCountError);
    await expect(importFiles([src('data_batch_1.bin')], store, { recordsPerFile: 12 })).resolves.toMatchObject({
      unchanged: false,
    });
  });

  it('takes class names from batches.meta.txt when given', async () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    const r = await importFiles([src('batches.meta.txt', formatMeta(names)), src('data_batch_1.bin')], store);
    expect(r.manifest.classes).toEqual(names);
  });

  it('rejects: no training file, a duplicate, a bad length, an empty file, a bad meta', async () => {
    await expect(importFiles([src('test_batch.bin')], store)).rejects.toThrow(
      /no training file: give at least one of data_batch_1.bin/,
    );
    await expect(importFiles([src('data_batch_1.bin'), src('data_batch_1.bin')], store)).rejects.toThrow(
      ArchiveContentsError,
    );
    await expect(importFiles([src('data_batch_1.bin', new Uint8Array(3073 * 2 + 7))], store)).rejects.toThrow(
      RecordLengthError,
    );
    await expect(importFiles([src('data_batch_1.bin', new Uint8Array(0))], store)).rejects.toThrow(EmptyFileError);
    await expect(
      importFiles([src('data_batch_1.bin'), src('batches.meta.txt', new TextEncoder().encode('cat\ndog\n'))], store),
    ).rejects.toThrow(MetaError);
    // A size that lies is caught from the bytes themselves.
    const liar = {
      name: 'data_batch_2.bin',
      size: 3073,
      stream: () => src('data_batch_2.bin', new Uint8Array(3073 + 4)).stream(),
    };
    await expect(importFiles([liar], store)).rejects.toThrow(/data_batch_2.bin: 3077 bytes/);
    expect(await store.listChunks()).toEqual([]);
  });
});

describe('importFromPath (Node)', { timeout: 60_000 }, () => {
  it('imports a .tar.gz file with its size as the progress total', async () => {
    const path = join(dir, 'cifar-10-binary.tar.gz');
    const archive = await makeArchive({ files });
    await writeFile(path, archive);
    let total: number | undefined;
    const r = await importFromPath(path, store, {
      onProgress: (p) => {
        total = p.totalBytes;
      },
    });
    expect(r.manifest.source.description).toBe('cifar-10-binary.tar.gz');
    expect(r.manifest.splits.train.records).toBe(60);
    expect(total).toBe(archive.byteLength);
  });

  it('imports an extracted directory (or its parent), and gives the same version as the archive', async () => {
    const binDir = join(dir, 'extracted', 'cifar-10-batches-bin');
    await mkdir(binDir, { recursive: true });
    for (const [name, bytes] of files) await writeFile(join(binDir, name), bytes);
    await writeFile(join(binDir, 'batches.meta.txt'), formatMeta(CIFAR10_CLASSES));
    await writeFile(join(binDir, 'readme.html'), '<html></html>');
    const fromDir = await importFromPath(join(dir, 'extracted'), store);
    expect(fromDir.ignored).toEqual(['readme.html']);
    expect(fromDir.manifest.splits.train.records).toBe(60);
    await writeFile(join(dir, 'a.tar.gz'), await makeArchive({ files }));
    const fromArchive = await importFromPath(join(dir, 'a.tar.gz'), store);
    expect(fromArchive.unchanged).toBe(true);
    expect(fromArchive.manifest.version).toBe(fromDir.manifest.version);
  });

  it('a path that does not exist is a SourceReadError naming it', async () => {
    await expect(importFromPath(join(dir, 'nope.tar.gz'), store)).rejects.toThrow(SourceReadError);
    await expect(importFromPath(join(dir, 'nope.tar.gz'), store)).rejects.toThrow(
      /nope.tar.gz: reading failed after 0 bytes: ENOENT/,
    );
  });
});
