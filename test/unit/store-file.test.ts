// The directory store on a real filesystem: atomic replacement (an import whose source fails
// halfway leaves the old manifest and chunks readable), checksums catching corruption on disk,
// leftovers of a crashed writer cleaned up, a damaged manifest reported, cancel, delete.
import { readFile, writeFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deleteDataset, listDatasets, openDataset } from '../../src/data/dataset.ts';
import { ImportAbortedError, SourceReadError } from '../../src/data/errors.ts';
import { ChecksumMismatchError, DatasetNotFoundError, ManifestError } from '../../src/data/store-errors.ts';
import { importArchive, importFiles } from '../../src/data/import.ts';
import { FileDatasetStore } from '../../src/data/store-file-node.ts';
import { useTempStore } from '../helpers/temp-store.ts';
import { bytesSource } from '../../src/data/synthetic.ts';
import {
  concatFiles,
  failingStream,
  makeArchive,
  makeFiles,
  readSplit,
  streamOf,
  TRAIN_NAMES,
} from '../helpers/cifar-fixture.ts';

let dir: string;
let store: FileDatasetStore;
useTempStore('webddp-store-', (d, s) => {
  dir = d;
  store = s;
});

const filesA = makeFiles(12, 7, 1);
const filesB = makeFiles(12, 7, 2);

describe('FileDatasetStore', { timeout: 60_000 }, () => {
  it('an import whose source errors halfway leaves the old manifest and data readable, and nothing behind', async () => {
    const a = await importArchive(streamOf(await makeArchive({ files: filesA })), store, { recordsPerChunk: 4 });
    const before = (await readdir(join(dir, 'chunks'))).sort();
    const archiveB = await makeArchive({ files: filesB });
    const err = await importArchive(failingStream(archiveB, archiveB.byteLength >> 1), store, {
      recordsPerChunk: 4,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceReadError);
    expect((err as Error).message).toMatch(
      /cifar-10-binary.tar.gz: reading failed after \d+ bytes: simulated read failure/,
    );
    const ds = await openDataset(store, 'cifar10');
    expect(ds.manifest).toEqual(a.manifest);
    expect(Buffer.from(await readSplit(ds, 'train')).equals(concatFiles(filesA, TRAIN_NAMES))).toBe(true);
    expect((await readdir(join(dir, 'chunks'))).sort()).toEqual(before);
    expect(await readdir(join(dir, 'tmp'))).toEqual([]);
  });

  it('a loose-file import failing on its second file also leaves the old dataset', async () => {
    const a = await importFiles(
      [bytesSource('data_batch_1.bin', filesA.get('data_batch_1.bin') ?? new Uint8Array())],
      store,
    );
    const bad = {
      name: 'data_batch_2.bin',
      stream: () => failingStream(filesB.get('data_batch_2.bin') ?? new Uint8Array(), 5000),
    };
    await expect(
      importFiles([bytesSource('data_batch_1.bin', filesB.get('data_batch_1.bin') ?? new Uint8Array()), bad], store),
    ).rejects.toThrow('data_batch_2.bin: reading failed after 5000 bytes: simulated read failure');
    expect((await openDataset(store, 'cifar10')).manifest).toEqual(a.manifest);
    expect((await store.listChunks()).length).toBe(1);
  });

  it('detects a corrupted chunk on disk by its checksum, and a missing one', async () => {
    await importArchive(streamOf(await makeArchive({ files: filesA })), store, { recordsPerChunk: 4 });
    const ds = await openDataset(store, 'cifar10');
    const info = ds.manifest.splits.train.chunks[2];
    if (!info) throw new Error('no chunk 2');
    const path = store.chunkFile(info.sha256);
    const bytes = await readFile(path);
    bytes[1000] = (bytes[1000] ?? 0) ^ 0x10;
    await writeFile(path, bytes);
    const err = await ds.readChunk('train', 2).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChecksumMismatchError);
    expect((err as Error).message).toMatch(
      /dataset 'cifar10': train chunk 2 is corrupt: sha256 [0-9a-f]{16}\.\.\. but the manifest says [0-9a-f]{16}\.\.\.; import the dataset again/,
    );
    await expect(ds.readChunk('train', 1)).resolves.toHaveLength(4 * 3073);
    await rm(path);
    await expect(ds.readChunk('train', 2)).rejects.toThrow(/train chunk 2 .* is missing from storage/);
  });

  it('re-importing repairs a corrupted chunk (identical content, same version)', async () => {
    const a = await importArchive(streamOf(await makeArchive({ files: filesA })), store);
    const info = a.manifest.splits.test.chunks[0];
    if (!info) throw new Error('no test chunk');
    await writeFile(store.chunkFile(info.sha256), new Uint8Array(10));
    const again = await importArchive(streamOf(await makeArchive({ files: filesA })), store);
    expect(again.unchanged).toBe(true);
    expect(again.chunksWritten).toBe(1);
    await (await openDataset(store, 'cifar10')).verify();
  });

  it("removes a crashed import's leftovers (temp files on open, unreferenced chunks at the next import)", async () => {
    await importFiles([bytesSource('data_batch_1.bin', filesA.get('data_batch_1.bin') ?? new Uint8Array())], store);
    await writeFile(join(dir, 'tmp', '123-1.tmp'), 'partial');
    await writeFile(join(dir, 'chunks', `${'ab'.repeat(32)}.bin`), 'orphan');
    store = await FileDatasetStore.open(dir);
    expect(await readdir(join(dir, 'tmp'))).toEqual([]);
    await importFiles([bytesSource('data_batch_1.bin', filesA.get('data_batch_1.bin') ?? new Uint8Array())], store);
    expect(await store.listChunks()).not.toContain('ab'.repeat(32));
  });

  it("many readers open one store at once (a colocated run's ranks, one thread), leaving a writer's temp files", async () => {
    await importFiles([bytesSource('data_batch_1.bin', filesA.get('data_batch_1.bin') ?? new Uint8Array())], store);
    await writeFile(join(dir, 'tmp', '123-1.tmp'), 'partial');
    const readers = await Promise.all(Array.from({ length: 8 }, () => FileDatasetStore.open(dir, { reader: true })));
    for (const r of readers) await (await openDataset(r, 'cifar10')).verify();
    expect(await readdir(join(dir, 'tmp'))).toEqual(['123-1.tmp']);
  });

  it('reports a damaged or tampered manifest, and a missing dataset', async () => {
    await expect(openDataset(store, 'cifar10')).rejects.toThrow(DatasetNotFoundError);
    await importFiles([bytesSource('data_batch_1.bin', filesA.get('data_batch_1.bin') ?? new Uint8Array())], store);
    const path = join(dir, 'manifests', 'cifar10.json');
    const m = JSON.parse(await readFile(path, 'utf8')) as {
      splits: { train: { records: number; chunks: { records: number }[] } };
    };
    m.splits.train.records = 11;
    await writeFile(path, JSON.stringify(m));
    await expect(openDataset(store, 'cifar10')).rejects.toThrow(/says 11 records but its chunks hold 12/);
    const chunk = m.splits.train.chunks[0];
    if (chunk) chunk.records = 11;
    await writeFile(path, JSON.stringify(m).replace('"bytes":36876', '"bytes":33803'));
    await expect(openDataset(store, 'cifar10')).rejects.toThrow(/version .* does not match its content/);
    await writeFile(path, '{ not json');
    await expect(openDataset(store, 'cifar10')).rejects.toThrow(ManifestError);
    expect(await listDatasets(store)).toEqual([]);
  });

  it('a cancelled import throws ImportAbortedError and commits nothing', async () => {
    const ctl = new AbortController();
    ctl.abort(new Error('user pressed cancel'));
    await expect(
      importArchive(streamOf(await makeArchive({ files: filesA })), store, { signal: ctl.signal }),
    ).rejects.toThrow(ImportAbortedError);
    expect(await listDatasets(store)).toEqual([]);
    expect(await store.listChunks()).toEqual([]);
  });

  it('keeps datasets apart and deletes only unshared chunks', async () => {
    const one = bytesSource('data_batch_1.bin', filesA.get('data_batch_1.bin') ?? new Uint8Array());
    await importFiles([one], store, { name: 'first' });
    await importFiles([one, bytesSource('test_batch.bin', filesA.get('test_batch.bin') ?? new Uint8Array())], store, {
      name: 'second',
    });
    expect((await listDatasets(store)).map((m) => m.name).sort()).toEqual(['first', 'second']);
    expect(await deleteDataset(store, 'second')).toBe(true);
    expect((await store.listChunks()).length).toBe(1); // the shared training chunk stays
    await (await openDataset(store, 'first')).verify();
    expect(await deleteDataset(store, 'second')).toBe(false);
  });
});
