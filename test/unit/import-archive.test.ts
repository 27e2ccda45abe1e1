// Importing cifar-10-binary.tar.gz archives the test builds in the real format (modern-tar packer +
// CompressionStream) into a real directory store, and every way such an archive can be broken:
// each failure is a specific error and leaves the previously imported dataset exactly as it was.
import { describe, expect, it } from 'vitest';
import { openDataset } from '../../src/data/dataset.ts';
import {
  ArchiveContentsError,
  CorruptGzipError,
  CorruptTarError,
  DecompressedTooLargeError,
  EmptyFileError,
  LabelError,
  NotGzipError,
  NotTarError,
  RecordLengthError,
  TruncatedGzipError,
} from '../../src/data/errors.ts';
import { importArchive } from '../../src/data/import.ts';
import type { ImportProgress } from '../../src/data/import-types.ts';
import type { FileDatasetStore } from '../../src/data/store-file-node.ts';
import { useTempStore } from '../helpers/temp-store.ts';
import {
  concatFiles,
  flipByte,
  gzip,
  makeArchive,
  makeFiles,
  makeRecords,
  makeTar,
  readSplit,
  streamOf,
  TRAIN_NAMES,
} from '../helpers/cifar-fixture.ts';

let store: FileDatasetStore;
useTempStore('webddp-import-', (_dir, s) => {
  store = s;
});

const files = makeFiles(12, 7, 1);

describe('importArchive', { timeout: 60_000 }, () => {
  it('imports a real-format archive: counts, dataset order (batches 1..5 whatever the tar order), records, class names', async () => {
    const progress: ImportProgress[] = [];
    const archive = await makeArchive({ files });
    const r = await importArchive(streamOf(archive, 1000), store, {
      recordsPerChunk: 5,
      totalBytes: archive.byteLength,
      onProgress: (p) => progress.push(p),
    });
    expect(r.unchanged).toBe(false);
    expect(r.ignored).toEqual(['cifar-10-batches-bin/readme.html']);
    expect(r.persisted).toBeUndefined();
    const m = r.manifest;
    expect(m.name).toBe('cifar10');
    expect(m.source).toEqual({
      kind: 'archive',
      description: 'cifar-10-binary.tar.gz',
      ignored: ['cifar-10-batches-bin/readme.html'],
    });
    expect(m.splits.train.records).toBe(60);
    expect(m.splits.test.records).toBe(7);
    expect(m.splits.train.files).toEqual(TRAIN_NAMES);
    expect(m.splits.train.chunks.map((c) => [c.file, c.records])).toEqual(
      TRAIN_NAMES.flatMap((f) => [
        [f, 5],
        [f, 5],
        [f, 2],
      ]),
    );
    expect(m.classes[0]).toBe('airplane');
    const ds = await openDataset(store, 'cifar10');
    expect(Buffer.from(await readSplit(ds, 'train')).equals(concatFiles(files, TRAIN_NAMES))).toBe(true);
    expect(Buffer.from(await readSplit(ds, 'test')).equals(files.get('test_batch.bin') ?? new Uint8Array())).toBe(true);
    // Progress: phases in order, bytes monotonic up to the total.
    expect(progress[0]?.phase).toBe('reading');
    expect(progress.at(-2)?.phase).toBe('committing');
    expect(progress.at(-1)).toMatchObject({
      phase: 'done',
      bytesRead: archive.byteLength,
      totalBytes: archive.byteLength,
      records: 67,
    });
    expect(progress.every((p, i) => i === 0 || p.bytesRead >= (progress[i - 1]?.bytesRead ?? 0))).toBe(true);
    expect(progress.some((p) => p.file === 'cifar-10-batches-bin/data_batch_3.bin')).toBe(true);
  });

  it('re-importing identical content is a no-op (same version, nothing written); other content swaps versions', async () => {
    const first = await importArchive(streamOf(await makeArchive({ files })), store);
    const again = await importArchive(
      streamOf(await makeArchive({ files, order: [...files.keys(), 'batches.meta.txt'] })),
      store,
    );
    expect(again.unchanged).toBe(true);
    expect(again.chunksWritten).toBe(0);
    expect(again.manifest.version).toBe(first.manifest.version);
    expect(again.manifest.created).toBe(first.manifest.created);
    const other = await importArchive(streamOf(await makeArchive({ files: makeFiles(12, 7, 2) })), store);
    expect(other.unchanged).toBe(false);
    expect(other.manifest.version).not.toBe(first.manifest.version);
    expect((await store.listChunks()).sort()).toEqual(
      [
        ...new Set(other.manifest.splits.train.chunks.concat(other.manifest.splits.test.chunks).map((c) => c.sha256)),
      ].sort(),
    );
  });

  it('accepts an uncompressed tar too (e.g. a server that applied Content-Encoding: gzip)', async () => {
    const r = await importArchive(streamOf(await makeTar({ files })), store);
    expect(r.manifest.splits.train.records).toBe(60);
  });

  // Each broken archive: [what, build, error class, message fragment].
  const bad: [string, () => Promise<Uint8Array>, new (...a: never[]) => Error, RegExp][] = [
    [
      'truncated gzip',
      async () => (await makeArchive({ files })).slice(0, 40_000),
      TruncatedGzipError,
      /cifar-10-binary.tar.gz: the gzip data is truncated/,
    ],
    [
      'a flipped byte mid-stream',
      async () => {
        const a = await makeArchive({ files });
        return flipByte(a, a.byteLength >> 1);
      },
      CorruptGzipError,
      /gzip data is corrupt near compressed byte \d+/,
    ],
    [
      'a flipped CRC byte',
      async () => {
        const a = await makeArchive({ files });
        return flipByte(a, a.byteLength - 6, 0x01);
      },
      CorruptGzipError,
      /corrupt/,
    ],
    [
      'not gzip',
      async () => new TextEncoder().encode('PK\u0003\u0004 this is a zip file, not a tarball'.repeat(20)),
      NotGzipError,
      /starts with 50 4b 03 04, expected 1f 8b/,
    ],
    ['gzip of something that is not a tar', async () => gzip(makeRecords(4, 1)), NotTarError, /not a tar archive/],
    ['an empty file', async () => new Uint8Array(0), EmptyFileError, /the file is empty/],
    [
      'a tar cut inside an entry',
      async () => gzip((await makeTar({ files })).slice(0, 30_000)),
      CorruptTarError,
      /tar archive is damaged: in or after entry/,
    ],
    [
      'a missing data_batch_4.bin',
      async () => {
        const f = new Map(files);
        f.delete('data_batch_4.bin');
        return makeArchive({ files: f });
      },
      ArchiveContentsError,
      /missing cifar-10-batches-bin\/data_batch_4.bin; ignored: cifar-10-batches-bin\/readme.html/,
    ],
    [
      'a missing batches.meta.txt',
      async () => makeArchive({ files, noMeta: true }),
      ArchiveContentsError,
      /missing cifar-10-batches-bin\/batches.meta.txt/,
    ],
    [
      'files in the wrong directory',
      async () => {
        const tar = await makeTar({ files: new Map(), noMeta: true, extra: { 'other/data_batch_1.bin': 'x' } });
        return gzip(tar);
      },
      ArchiveContentsError,
      /missing .*data_batch_1.bin.*ignored: .*other\/data_batch_1.bin/,
    ],
    [
      'a file of the wrong length',
      async () => {
        const f = new Map(files);
        f.set('data_batch_2.bin', makeRecords(3, 5).slice(0, 3 * 3073 - 1));
        return makeArchive({ files: f });
      },
      RecordLengthError,
      /cifar-10-batches-bin\/data_batch_2.bin: 9218 bytes is not a whole number of 3073-byte records/,
    ],
    [
      'label 10',
      async () => {
        const f = new Map(files);
        const b = makeRecords(12, 9);
        b[5 * 3073] = 10;
        f.set('data_batch_3.bin', b);
        return makeArchive({ files: f });
      },
      LabelError,
      /data_batch_3.bin: record 5 \(byte offset 15365\) has label 10/,
    ],
    [
      'an empty .bin member',
      async () => {
        const f = new Map(files);
        f.set('test_batch.bin', new Uint8Array(0));
        return makeArchive({ files: f });
      },
      EmptyFileError,
      /test_batch.bin: the file is empty/,
    ],
    [
      'a member present twice',
      async () => makeArchive({ files, extra: { 'cifar-10-batches-bin/data_batch_1.bin': 'dup' } }),
      ArchiveContentsError,
      /data_batch_1.bin appears twice/,
    ],
  ];

  it.each(bad)(
    'rejects %s with a specific error and leaves the stored dataset intact',
    async (_what, build, cls, msg) => {
      const good = await importArchive(streamOf(await makeArchive({ files })), store, { recordsPerChunk: 5 });
      const chunksBefore = (await store.listChunks()).sort();
      const err = await importArchive(streamOf(await build(), 777), store, { recordsPerChunk: 5 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(cls);
      expect((err as Error).message).toMatch(msg);
      const ds = await openDataset(store, 'cifar10');
      expect(ds.manifest).toEqual(good.manifest);
      expect(Buffer.from(await readSplit(ds, 'train')).equals(concatFiles(files, TRAIN_NAMES))).toBe(true);
      expect((await store.listChunks()).sort()).toEqual(chunksBefore); // nothing left behind
    },
  );

  it('rejects a symlink where a data file should be', async () => {
    const { packTar } = await import('modern-tar');
    const tar = await packTar([
      { header: { name: 'cifar-10-batches-bin/data_batch_1.bin', type: 'symlink', linkname: '/etc/passwd', size: 0 } },
    ]);
    await expect(importArchive(streamOf(await gzip(tar)), store)).rejects.toThrow(
      /data_batch_1.bin is a symlink, not a regular file/,
    );
  });

  it('stops a decompression bomb at the cap', async () => {
    const zeros = await gzip(new Uint8Array(8 << 20)); // 8 MiB of zeros: a few KiB compressed
    expect(zeros.byteLength).toBeLessThan(64 << 10);
    await expect(importArchive(streamOf(zeros), store, { maxDecompressedBytes: 1 << 20 })).rejects.toThrow(
      DecompressedTooLargeError,
    );
  });
});
