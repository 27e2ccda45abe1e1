// The CIFAR-10 "binary version" (https://www.cs.toronto.edu/~kriz/cifar.html): file names, the
// 3073-byte record (1 label byte, then 1024 R, 1024 G, 1024 B bytes, each plane 32x32 row-major),
// validation of a .bin buffer, and batches.meta.txt. Pure: no I/O.
import { EmptyFileError, LabelError, MetaError, RecordLengthError } from './errors.ts';

/** Bytes of one image: 3 planes of 32x32. */
export const IMAGE_BYTES = 3072;
/** Bytes of one record: the label byte, then the image. */
export const RECORD_BYTES = 3073;
/** Number of classes; every label is 0..NUM_CLASSES-1. */
const NUM_CLASSES = 10;

/** The directory every member of cifar-10-binary.tar.gz lives in. */
export const ARCHIVE_DIR = 'cifar-10-batches-bin';
/** Training files, in dataset order (torchvision concatenates them in this order). */
export const TRAIN_FILES = [
  'data_batch_1.bin',
  'data_batch_2.bin',
  'data_batch_3.bin',
  'data_batch_4.bin',
  'data_batch_5.bin',
] as const;
export const TEST_FILE = 'test_batch.bin';
export const META_FILE = 'batches.meta.txt';
export type CifarBinFile = (typeof TRAIN_FILES)[number] | typeof TEST_FILE;
export type CifarFile = CifarBinFile | typeof META_FILE;

/** The class names batches.meta.txt lists, in label order. */
export const CIFAR10_CLASSES: readonly string[] = [
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
];

/** Returns the CIFAR file a base name denotes, or undefined for any other name. */
export function cifarFileOf(baseName: string): CifarFile | undefined {
  if (baseName === TEST_FILE || baseName === META_FILE) return baseName;
  return TRAIN_FILES.find((f) => f === baseName);
}

/**
 * Checks the label byte of every whole record in `records` (which starts at record
 * `firstRecord` of `file`). Throws LabelError naming the first bad record and its byte offset.
 */
export function checkLabels(records: Uint8Array, file: string, firstRecord = 0): void {
  const n = Math.floor(records.byteLength / RECORD_BYTES);
  for (let r = 0; r < n; r++) {
    const label = records[r * RECORD_BYTES] ?? 0;
    if (label >= NUM_CLASSES) {
      const record = firstRecord + r;
      throw new LabelError(file, record, record * RECORD_BYTES, label);
    }
  }
}

/** Checks a whole-file byte count: non-empty and a whole number of records. Returns the record count. */
export function checkFileLength(bytes: number, file: string): number {
  if (bytes === 0) throw new EmptyFileError(file);
  if (bytes % RECORD_BYTES !== 0) throw new RecordLengthError(file, bytes);
  return bytes / RECORD_BYTES;
}

/** A validated CIFAR-10 .bin file: views into the original buffer, no copy. */
export interface CifarBatch {
  readonly file: string;
  readonly count: number;
  /** The raw records (label + pixels), as given. */
  readonly records: Uint8Array;
}

/**
 * Validates a whole .bin buffer: non-empty, a multiple of 3073 bytes, every label 0..9.
 * Errors name `file`, the first bad record and its byte offset.
 */
export function parseCifarBatch(bytes: Uint8Array, file: string): CifarBatch {
  const count = checkFileLength(bytes.byteLength, file);
  checkLabels(bytes, file);
  return { file, count, records: bytes };
}

/** The label of record `i` of a record buffer. */
export function recordLabel(records: Uint8Array, i: number): number {
  return records[i * RECORD_BYTES] ?? 0;
}

/** The 3072 pixel bytes (R, G, B planes) of record `i`, as a view. */
export function recordImage(records: Uint8Array, i: number): Uint8Array {
  const at = i * RECORD_BYTES + 1;
  return records.subarray(at, at + IMAGE_BYTES);
}

/** Encodes label + CHW pixels as one record (for generators and tests). */
export function encodeRecord(label: number, image: Uint8Array): Uint8Array {
  const out = new Uint8Array(RECORD_BYTES);
  out[0] = label;
  out.set(image.subarray(0, IMAGE_BYTES), 1);
  return out;
}

/** Largest batches.meta.txt accepted (the real one is 61 bytes). */
export const MAX_META_BYTES = 64 * 1024;

/** Parses batches.meta.txt: one class name per line, blank lines ignored; exactly 10 names. */
export function parseMeta(bytes: Uint8Array, file = META_FILE): string[] {
  if (bytes.byteLength > MAX_META_BYTES)
    throw new MetaError(file, `${bytes.byteLength} bytes is too large for a list of class names`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new MetaError(file, 'not valid UTF-8 text');
  }
  const names = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  if (names.length !== NUM_CLASSES)
    throw new MetaError(file, `lists ${names.length} class names, expected ${NUM_CLASSES}`);
  return names;
}

/** Formats class names as batches.meta.txt. */
export function formatMeta(names: readonly string[]): Uint8Array {
  return new TextEncoder().encode(`${names.join('\n')}\n\n`);
}
