// Pieces of the unit-tier fuzz test (test/unit/fuzz-import.test.ts): mutants of a valid CIFAR
// archive at the gzip level and at the tar level (re-gzipped, or given as a plain .tar), an
// independent reading of a mutant that imported (node:zlib + modern-tar's unpackTar, not the
// importer's streaming path) to check the import was correct, and a garbage collector for
// measuring what stays allocated.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { unpackTar } from 'modern-tar';
import { CIFAR10_CLASSES, formatMeta, parseMeta, RECORD_BYTES } from '../../src/data/cifar.ts';
import { concatFiles, gzip, TRAIN_NAMES } from './cifar-fixture.ts';
import { editTarHeader, mutateBytes, type Mutant, type Prng } from './mutate.ts';

/** A mutant archive and the file name it is imported under. */
export interface ArchiveMutant extends Mutant {
  readonly file: string;
}

/** One seeded mutation of the archive (`gz` = gzip of `tar`). */
export async function archiveMutant(r: Prng, tar: Uint8Array, gz: Uint8Array): Promise<ArchiveMutant> {
  const level = r.next();
  if (level < 0.35) return { ...mutateBytes(r, gz, [0, 32]), file: 'a.tar.gz' };
  const m = r.next() < 0.5 ? editTarHeader(r, tar) : mutateBytes(r, tar, [0, 1024]);
  if (level < 0.9) return { what: `tar ${m.what}, gzipped`, bytes: await gzip(m.bytes), file: 'a.tar.gz' };
  return { what: `tar ${m.what}, plain`, bytes: m.bytes, file: 'a.tar' };
}

/** A directory of .bin files and batches.meta.txt with one file mutated, dropped or renamed. */
export function directoryMutant(
  r: Prng,
  bins: ReadonlyMap<string, Uint8Array>,
): { what: string; files: Map<string, Uint8Array> } {
  const files = new Map(bins);
  files.set('batches.meta.txt', formatMeta(CIFAR10_CLASSES));
  const name = r.pick([...files.keys()]);
  const how = r.int(4);
  if (how === 0) {
    files.delete(name);
    return { what: `directory without ${name}`, files };
  }
  if (how === 1) {
    const body = files.get(name) ?? new Uint8Array(0);
    files.delete(name);
    files.set(`${name}.old`, body);
    return { what: `directory with ${name} renamed`, files };
  }
  const m = mutateBytes(r, files.get(name) ?? new Uint8Array(0), [0, 16]);
  files.set(name, m.bytes);
  return { what: `directory, ${name}: ${m.what}`, files };
}

/** What a correct import of a directory of `files` stores (importFiles' rules), or undefined. */
export function expectedDirectoryImport(
  files: ReadonlyMap<string, Uint8Array>,
): { train: Uint8Array; test: Uint8Array; classes: string[] } | undefined {
  const train = TRAIN_NAMES.filter((n) => files.has(n));
  if (train.length === 0) return undefined;
  const meta = files.get('batches.meta.txt');
  return {
    train: concatFiles(new Map(files), train),
    test: files.get('test_batch.bin') ?? new Uint8Array(0),
    classes: meta ? parseMeta(meta, 'batches.meta.txt') : [...CIFAR10_CLASSES],
  };
}

/** What a correct import of `bytes` stores, read independently; undefined if it is not a CIFAR archive. */
export async function expectedImport(
  bytes: Uint8Array,
): Promise<{ train: Uint8Array; test: Uint8Array; classes: string[] } | undefined> {
  const tar = bytes[0] === 0x1f && bytes[1] === 0x8b ? new Uint8Array(gunzipSync(bytes)) : bytes;
  const entries = await unpackTar(tar, { strict: true });
  const file = (name: string) =>
    entries.find((e) => e.header.name.replace(/^(\.\/)+/, '') === `cifar-10-batches-bin/${name}`)?.data;
  const parts = TRAIN_NAMES.map(file);
  const test = file('test_batch.bin');
  const meta = file('batches.meta.txt');
  if (parts.some((p) => p === undefined) || !test || !meta) return undefined;
  const train = new Uint8Array(parts.reduce((a, p) => a + (p?.byteLength ?? 0), 0));
  let at = 0;
  for (const p of parts) {
    train.set(p ?? new Uint8Array(0), at);
    at += p?.byteLength ?? 0;
  }
  if (train.byteLength % RECORD_BYTES !== 0) return undefined;
  return { train, test, classes: parseMeta(meta, 'batches.meta.txt') };
}

let collect: (() => void) | undefined;

/** Runs a full garbage collection (V8's gc, made reachable at run time). */
export function fullGc(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

/** Heap and ArrayBuffer bytes of this thread. */
export function heapBytes(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}
