// CIFAR-10 binary format: record layout, whole-file validation, meta, and the streaming chunker.
import { describe, expect, it } from 'vitest';
import {
  RECORD_BYTES,
  checkLabels,
  cifarFileOf,
  encodeRecord,
  formatMeta,
  parseCifarBatch,
  parseMeta,
  recordImage,
  recordLabel,
} from '../../src/data/cifar.ts';
import { EmptyFileError, LabelError, MetaError, RecordLengthError } from '../../src/data/errors.ts';
import { RecordChunker } from '../../src/data/records.ts';
import { makeRecords } from '../helpers/cifar-fixture.ts';

describe('parseCifarBatch', () => {
  it('accepts whole records with labels 0..9 and exposes label and CHW pixels', () => {
    const img = new Uint8Array(3072).map((_, i) => i % 251);
    const bytes = new Uint8Array([...encodeRecord(7, img), ...encodeRecord(0, img)]);
    const b = parseCifarBatch(bytes, 'data_batch_1.bin');
    expect(b.count).toBe(2);
    expect(recordLabel(bytes, 0)).toBe(7);
    expect(recordLabel(bytes, 1)).toBe(0);
    expect([...recordImage(bytes, 1).subarray(1020, 1030)]).toEqual([...img.subarray(1020, 1030)]);
  });

  it.each([3072, 3074, (30_729_999 % 3073) + 3073 * 3, 3073 * 5 + 1])(
    'rejects %i bytes (not a whole number of records), naming the file and offset',
    (n) => {
      const e = (() => {
        try {
          parseCifarBatch(new Uint8Array(n), 'data_batch_2.bin');
        } catch (x) {
          return x;
        }
      })();
      expect(e).toBeInstanceOf(RecordLengthError);
      expect((e as Error).message).toContain('data_batch_2.bin');
      expect((e as Error).message).toContain(`${n} bytes`);
      expect((e as Error).message).toContain(`byte offset ${Math.floor(n / 3073) * 3073}`);
    },
  );

  it('rejects an empty file', () => {
    expect(() => parseCifarBatch(new Uint8Array(0), 'test_batch.bin')).toThrow(EmptyFileError);
    expect(() => parseCifarBatch(new Uint8Array(0), 'test_batch.bin')).toThrow(/test_batch.bin: the file is empty/);
  });

  it.each([
    [0, 10],
    [4, 255],
    [9, 10],
  ])('rejects record %i with label %i, naming file, record and byte offset', (record, label) => {
    const bytes = makeRecords(10, 3);
    bytes[record * RECORD_BYTES] = label;
    bytes[9 * RECORD_BYTES] = record === 9 ? label : 11; // a later bad label too: the first is reported
    let err: unknown;
    try {
      parseCifarBatch(bytes, 'data_batch_5.bin');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LabelError);
    const le = err as LabelError;
    expect([le.file, le.record, le.offset, le.value]).toEqual(['data_batch_5.bin', record, record * 3073, label]);
    expect(le.message).toBe(
      `data_batch_5.bin: record ${record} (byte offset ${record * 3073}) has label ${label}; CIFAR-10 labels are 0..9`,
    );
  });

  it('checkLabels counts records from firstRecord', () => {
    const bytes = makeRecords(3, 1);
    bytes[2 * RECORD_BYTES] = 12;
    expect(() => checkLabels(bytes, 'f.bin', 100)).toThrow('f.bin: record 102 (byte offset 313446) has label 12');
  });
});

describe('file names and meta', () => {
  it('knows the CIFAR file names and nothing else', () => {
    expect(cifarFileOf('data_batch_3.bin')).toBe('data_batch_3.bin');
    expect(cifarFileOf('test_batch.bin')).toBe('test_batch.bin');
    expect(cifarFileOf('batches.meta.txt')).toBe('batches.meta.txt');
    expect(cifarFileOf('data_batch_6.bin')).toBeUndefined();
    expect(cifarFileOf('readme.html')).toBeUndefined();
  });

  it('parses batches.meta.txt (blank lines ignored) and rejects the wrong number of names', () => {
    const real = new TextEncoder().encode('airplane\nautomobile\nbird\ncat\ndeer\ndog\nfrog\nhorse\nship\ntruck\n\n');
    expect(parseMeta(real)).toEqual([
      'airplane',
      'automobile',
      'bird',
      'cat',
      'deer',
      'dog',
      'frog',
      'horse',
      'ship',
      'truck',
    ]);
    expect(parseMeta(formatMeta(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']))).toHaveLength(10);
    expect(() => parseMeta(new TextEncoder().encode('a\nb\n'))).toThrow(MetaError);
    expect(() => parseMeta(new Uint8Array([0xff, 0xfe]))).toThrow(/not valid UTF-8/);
  });
});

describe('RecordChunker', () => {
  async function chunk(bytes: Uint8Array, per: number, piece: number) {
    const chunks: { bytes: Uint8Array; records: number }[] = [];
    const c = new RecordChunker('data_batch_1.bin', per, async (b, records) => {
      chunks.push({ bytes: b, records });
    });
    for (let at = 0; at < bytes.byteLength; at += piece) await c.push(bytes.subarray(at, at + piece));
    const total = await c.finish();
    return { chunks, total };
  }

  it('cuts any piece sizes into chunks of whole records, the same for every piece size', async () => {
    const bytes = makeRecords(11, 2);
    for (const piece of [1, 1000, 3073, 5000, 40000]) {
      const { chunks, total } = await chunk(bytes, 4, piece);
      expect(total).toBe(11);
      expect(chunks.map((c) => c.records)).toEqual([4, 4, 3]);
      expect(chunks.map((c) => c.bytes.byteLength)).toEqual([4 * 3073, 4 * 3073, 3 * 3073]);
      expect(Buffer.concat(chunks.map((c) => c.bytes)).equals(bytes)).toBe(true);
    }
  });

  it('reports a bad label with its record number in the whole file, and a short tail with the file length', async () => {
    const bytes = makeRecords(9, 2);
    bytes[6 * 3073] = 10;
    await expect(chunk(bytes, 4, 777)).rejects.toThrow('data_batch_1.bin: record 6 (byte offset 18438) has label 10');
    await expect(chunk(makeRecords(3, 1).subarray(0, 3 * 3073 - 5), 4, 1000)).rejects.toThrow(RecordLengthError);
    await expect(chunk(new Uint8Array(0), 4, 1000)).rejects.toThrow(EmptyFileError);
  });
});
