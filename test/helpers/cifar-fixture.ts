// Builds CIFAR-10 binary archives in the real format for tests: deterministic records, a real tar
// (modern-tar's packer) gzipped with CompressionStream, with hooks to break it in specific ways.
// Runs in Node and in the browser harness (no node: imports).
import { packTar, type TarEntry } from 'modern-tar';
import { CpuGenerator } from '../../src/random/generator.ts';
import { RECORD_BYTES, formatMeta, CIFAR10_CLASSES } from '../../src/data/cifar.ts';

/** `count` records with labels (first + i) % 10 and pseudo-random pixels from `seed`. */
export function makeRecords(count: number, seed: number, firstLabel = 0): Uint8Array {
  const g = new CpuGenerator(seed);
  const out = new Uint8Array(count * RECORD_BYTES);
  for (let i = 0; i < count; i++) {
    out[i * RECORD_BYTES] = (firstLabel + i) % 10;
    for (let k = 1; k < RECORD_BYTES; k += 4) {
      const v = g.random();
      for (let b = 0; b < 4 && k + b < RECORD_BYTES; b++) out[i * RECORD_BYTES + k + b] = (v >>> (8 * b)) & 255;
    }
  }
  return out;
}

/** The six .bin files of a small CIFAR-format dataset (records per file configurable). */
export function makeFiles(perFile = 12, testCount = 7, seed = 1): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (let b = 1; b <= 5; b++) files.set(`data_batch_${b}.bin`, makeRecords(perFile, seed * 100 + b, b));
  files.set('test_batch.bin', makeRecords(testCount, seed * 100 + 9, 3));
  return files;
}

export interface ArchiveSpec {
  /** .bin contents by base name (default makeFiles()). */
  files?: Map<string, Uint8Array>;
  /** Member order (default: scrambled like the real archive). */
  order?: string[];
  /** Extra members (path -> text). */
  extra?: Record<string, string>;
  /** Leave out batches.meta.txt. */
  noMeta?: boolean;
  /** Override the meta text. */
  meta?: string;
}

/** The real archive's member order is not sorted; mimic that. */
export const SCRAMBLED = [
  'data_batch_4.bin',
  'readme.html',
  'test_batch.bin',
  'data_batch_3.bin',
  'batches.meta.txt',
  'data_batch_2.bin',
  'data_batch_5.bin',
  'data_batch_1.bin',
];

/** A tar of `cifar-10-batches-bin/...` in the real layout. */
export async function makeTar(spec: ArchiveSpec = {}): Promise<Uint8Array> {
  const files = spec.files ?? makeFiles();
  const meta = spec.meta ?? new TextDecoder().decode(formatMeta(CIFAR10_CLASSES));
  const contents = new Map<string, Uint8Array | string>(files);
  if (!spec.noMeta) contents.set('batches.meta.txt', meta);
  contents.set('readme.html', '<html>CIFAR-10</html>');
  const order = spec.order ?? [
    ...SCRAMBLED.filter((n) => contents.has(n)),
    ...[...contents.keys()].filter((n) => !SCRAMBLED.includes(n)),
  ];
  const entries: TarEntry[] = [
    { header: { name: 'cifar-10-batches-bin/', type: 'directory', size: 0, mtime: new Date(0) } },
  ];
  for (const name of order) {
    const body = contents.get(name);
    if (body === undefined) continue;
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    entries.push({
      header: { name: `cifar-10-batches-bin/${name}`, size: bytes.byteLength, mtime: new Date(0) },
      body: bytes,
    });
  }
  for (const [path, text] of Object.entries(spec.extra ?? {})) {
    const bytes = new TextEncoder().encode(text);
    entries.push({ header: { name: path, size: bytes.byteLength, mtime: new Date(0) }, body: bytes });
  }
  return packTar(entries);
}

/** Gzips bytes with CompressionStream('gzip'). */
export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const s = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

/** makeTar + gzip. */
export async function makeArchive(spec: ArchiveSpec = {}): Promise<Uint8Array> {
  return gzip(await makeTar(spec));
}

/** A stream of `bytes` in pieces of `piece` bytes. */
export function streamOf(bytes: Uint8Array, piece = 4096): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(ctrl) {
      if (at >= bytes.byteLength) return ctrl.close();
      ctrl.enqueue(bytes.slice(at, at + piece));
      at += piece;
    },
  });
}

/** A stream that yields the first `failAfter` bytes of `bytes`, then errors with `error`. */
export function failingStream(
  bytes: Uint8Array,
  failAfter: number,
  error = new Error('simulated read failure'),
): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(ctrl) {
      if (at >= failAfter) return ctrl.error(error);
      const end = Math.min(failAfter, at + 4096);
      ctrl.enqueue(bytes.slice(at, end));
      at = end;
    },
  });
}

/** Concatenation of the given files' records (the dataset order of a split). */
export function concatFiles(files: Map<string, Uint8Array>, names: readonly string[]): Uint8Array {
  const parts = names.map((n) => files.get(n) ?? new Uint8Array(0));
  const out = new Uint8Array(parts.reduce((a, p) => a + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

export const TRAIN_NAMES = [
  'data_batch_1.bin',
  'data_batch_2.bin',
  'data_batch_3.bin',
  'data_batch_4.bin',
  'data_batch_5.bin',
];

/** Every record of `split`, read chunk by chunk (verified) and concatenated: for tests only. */
export async function readSplit(
  dataset: import('../../src/data/dataset.ts').Dataset,
  split: 'train' | 'test',
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for (let i = 0; i < dataset.manifest.splits[split].chunks.length; i++) parts.push(await dataset.readChunk(split, i));
  const m = new Map(parts.map((p, i) => [String(i), p]));
  return concatFiles(
    m,
    parts.map((_, i) => String(i)),
  );
}

/** A copy of `bytes` with byte `at` XOR-ed with `mask`. */
export function flipByte(bytes: Uint8Array, at: number, mask = 0xff): Uint8Array {
  const out = bytes.slice();
  out[at] = (out[at] ?? 0) ^ mask;
  return out;
}
